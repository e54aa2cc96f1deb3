#include <cstdio>

int shift(int value, int by) {
    return value << by;
}

int main() {
    volatile int by = @@S@@;
    std::printf("%d\n", shift(@@V@@, by));
    return 0;
}
