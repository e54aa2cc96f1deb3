// note: __has_cpp_attribute(nodiscard) depends on the compiler and standard
// holes: V=1..99
#include <cstdio>

int main() {
#if defined(__has_cpp_attribute) && __has_cpp_attribute(nodiscard)
    std::printf("%ld %d\n", (long)__has_cpp_attribute(nodiscard), @@V@@);
#else
    std::printf("none %d\n", @@V@@);
#endif
    return 0;
}
