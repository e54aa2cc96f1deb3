// note: __cpp_if_constexpr is defined only in C++17 mode
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __cpp_if_constexpr
    std::printf("%ld %d\n", (long)__cpp_if_constexpr, @@V@@);
#else
    std::printf("none %d\n", @@V@@);
#endif
    return 0;
}
