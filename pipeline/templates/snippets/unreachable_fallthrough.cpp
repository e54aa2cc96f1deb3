// note: __builtin_unreachable reached is undefined: -O0 and -O2 code do different things
// holes: V=1..9
#include <cstdio>

int sign(int x) {
    if (x > 0)
        return 1;
    if (x < 0)
        return -1;
    __builtin_unreachable();
}

int main() {
    std::printf("%d %d\n", sign(@@V@@), sign(0) == 0);
    return 0;
}
