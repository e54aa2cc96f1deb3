// note: `x = x`: clang++ warns that x is assigned to itself, g++ is silent
// holes: V=1..99
#include <cstdio>

int main() {
    int x = @@V@@;
    x = x;
    std::printf("%d\n", x);
    return 0;
}
