// note: `"text" + n` is pointer arithmetic: clang++ warns about it, g++ does not
// holes: N=1..4
#include <cstdio>

int main() {
    const char *tail = "abcdefgh" + @@N@@;
    std::printf("%s\n", tail);
    return 0;
}
