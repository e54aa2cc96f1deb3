// note: __clang__ is defined by clang++ only
// holes: V=1..99
#include <cstdio>

int main() {
#if defined(__clang__)
    std::printf("clang %d\n", @@V@@);
#elif defined(__GNUC__)
    std::printf("gcc %d\n", @@V@@);
#else
    std::printf("other %d\n", @@V@@);
#endif
    return 0;
}
