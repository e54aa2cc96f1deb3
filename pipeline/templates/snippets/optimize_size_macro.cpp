// note: __OPTIMIZE_SIZE__ is defined only under -Os
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __OPTIMIZE_SIZE__
    std::printf("small %d\n", @@V@@);
#else
    std::printf("fast %d\n", @@V@@);
#endif
    return 0;
}
