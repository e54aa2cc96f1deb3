// note: a constant division by zero: warned differently, then folded or trapped depending on -O
// holes: V=1..99
#include <cstdio>

int main() {
    int zero = 0;
    std::printf("start\n");
    std::fflush(stdout);
    std::printf("%d\n", @@V@@ / 0 + zero);
    return 0;
}
