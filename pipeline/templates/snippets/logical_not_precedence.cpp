// note: `!x == V` applies ! first: clang++ warns about it by default
// holes: V=1..9
#include <cstdio>

int main() {
    int x = @@V@@;
    if (!x == @@V@@)
        std::printf("equal\n");
    else
        std::printf("not equal\n");
    return 0;
}
