// note: a shift by a negative count is undefined: warned differently, masked at run time
// holes: V=1..9
#include <cstdio>

int main() {
    volatile int value = @@V@@;
    std::printf("%d\n", value << -1);
    return 0;
}
