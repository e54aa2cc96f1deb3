// note: `register` is removed in C++17: g++ errors, clang++ errors with another text, and both warn in C++11/14 differently
// holes: V=1..99
#include <iostream>

int main() {
    register int x = @@V@@;
    std::cout << x * 2 << std::endl;
    return 0;
}
