// note: `x == V;` as a statement: clang++ warns the result is unused, g++ is silent
// holes: V=1..99
#include <cstdio>

int main() {
    int x = @@V@@;
    x == @@V@@;
    std::printf("%d\n", x);
    return 0;
}
