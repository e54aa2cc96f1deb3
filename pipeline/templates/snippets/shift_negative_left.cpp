// note: left-shifting a negative number is undefined before C++20: clang++ warns, folding differs
// holes: V=1..9
#include <cstdio>

int main() {
    int x = -@@V@@;
    volatile int by = 31;
    std::printf("%d %d\n", x << 2, (x << by) < 0);
    return 0;
}
