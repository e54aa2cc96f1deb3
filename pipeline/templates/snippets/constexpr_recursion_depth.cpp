// note: constexpr recursion 600 deep: past both compilers' 512, each reports it differently
// holes: V=1..9
#include <cstdio>

constexpr int down(int n) {
    return n == 0 ? 0 : 1 + down(n - 1);
}

int main() {
    constexpr int value = down(600);
    std::printf("%d %d\n", value, @@V@@);
    return 0;
}
