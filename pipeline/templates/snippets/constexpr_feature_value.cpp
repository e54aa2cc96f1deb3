// note: __cpp_constexpr takes a different value in each standard
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __cpp_constexpr
    std::printf("%ld %d\n", (long)__cpp_constexpr, @@V@@);
#else
    std::printf("none %d\n", @@V@@);
#endif
    return 0;
}
