// note: assigning to a const variable: the error text differs between g++ and clang++
// holes: V=1..99
#include <iostream>

int main() {
    const int limit = @@V@@;
    limit = limit + 1;
    std::cout << limit << std::endl;
    return 0;
}
