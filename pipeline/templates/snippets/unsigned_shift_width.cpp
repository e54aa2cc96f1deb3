// note: shifting a 64-bit value by 64 is undefined: x86 masks the count to 0, folding gives 0
// holes: V=1..9
#include <cstdio>

unsigned long long shift(unsigned long long v, int by) {
    return v << by;
}

int main() {
    volatile int by = 64;
    std::printf("%llu\n", shift(@@V@@ULL, by));
    return 0;
}
