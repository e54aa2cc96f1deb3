// note: `i = ++i + i++` is unsequenced: clang++ warns and orders it differently from g++
// holes: V=1..20
#include <cstdio>

int main() {
    int i = @@V@@;
    int j = i++ * 10 + i++;
    std::printf("%d %d\n", i, j);
    return 0;
}
