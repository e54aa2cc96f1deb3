// note: `p + n < p` relies on pointer overflow, which is undefined: folded to false at -O1 and up
// holes: V=1..9
#include <cstdio>

bool wraps(const char *p, unsigned long n) {
    return p + n < p;
}

int main() {
    char buffer[4];
    volatile unsigned long huge = ~0UL - @@V@@;
    std::printf("%d\n", wraps(buffer, huge));
    return 0;
}
