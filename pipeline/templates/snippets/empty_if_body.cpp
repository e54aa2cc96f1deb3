// note: `if (x);` with an empty body: clang++ warns by default, g++ is silent
// holes: V=1..99
#include <cstdio>

int main() {
    int x = @@V@@;
    if (x > 1000);
        std::printf("%d\n", x);
    return 0;
}
