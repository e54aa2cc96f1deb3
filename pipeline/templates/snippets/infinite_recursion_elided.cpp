// note: endless recursion with no side effect: -O2 may turn it into a loop or remove it
// holes: V=1..9
#include <cstdio>

int depth(int n) {
    if (n == 0)
        return 0;
    return depth(n + 1) + 0;
}

int main() {
    std::printf("start\n");
    std::fflush(stdout);
    std::printf("%d\n", depth(@@V@@) == 0);
    return 0;
}
