// note: falling off the end of a non-void function is undefined: g++ and clang++ warn and behave differently
// holes: V=1..99
#include <cstdio>

int pick(int x) {
    if (x > 1000)
        return x;
}

int main() {
    std::printf("before\n");
    std::fflush(stdout);
    std::printf("%d\n", pick(@@V@@) != 0);
    return 0;
}
