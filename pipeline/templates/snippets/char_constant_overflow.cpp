// note: an int constant that does not fit a char: g++ and clang++ warn in different words
// holes: V=300..900
#include <cstdio>

int main() {
    char c = @@V@@;
    std::printf("%d\n", c);
    return 0;
}
