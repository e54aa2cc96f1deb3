// note: shifting an int by its width or more is undefined: x86 masks the count at run time, folding does not
// holes: S=32..40 V=1..9
#include <cstdio>

int shift(int value, int by) {
    return value << by;
}

int main() {
    volatile int by = @@S@@;
    std::printf("%d\n", shift(@@V@@, by));
    return 0;
}
