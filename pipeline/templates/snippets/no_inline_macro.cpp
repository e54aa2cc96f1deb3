// note: __NO_INLINE__ is defined only when no inlining is done (-O0)
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __NO_INLINE__
    std::printf("no inlining %d\n", @@V@@);
#else
    std::printf("inlining %d\n", @@V@@);
#endif
    return 0;
}
