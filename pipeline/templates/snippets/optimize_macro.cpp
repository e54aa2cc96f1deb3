// note: __OPTIMIZE__ is defined from -O1 on
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __OPTIMIZE__
    std::printf("optimised %d\n", @@V@@);
#else
    std::printf("plain %d\n", @@V@@);
#endif
    return 0;
}
