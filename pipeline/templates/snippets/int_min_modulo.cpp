// note: INT_MIN % -1 overflows: a trap at run time, 0 when folded
// holes: V=1..9
#include <climits>
#include <cstdio>

int rem(int a, int b) {
    return a % b;
}

int main() {
    std::printf("start %d\n", @@V@@);
    std::fflush(stdout);
    std::printf("%d\n", rem(INT_MIN, -1));
    return 0;
}
