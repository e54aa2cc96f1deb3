// note: `if (x = V)`: clang++ warns about the assignment by default, g++ only with -Wall
// holes: V=1..9
#include <cstdio>

int main() {
    int x = 0;
    if (x = @@V@@)
        std::printf("taken %d\n", x);
    return 0;
}
