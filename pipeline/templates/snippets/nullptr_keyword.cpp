// note: nullptr is no keyword in C++03: the two compilers word the error differently
// holes: V=1..99
#include <iostream>

int main() {
    int *p = nullptr;
    int value = @@V@@;
    std::cout << (p == 0 ? value : -value) << std::endl;
    return 0;
}
