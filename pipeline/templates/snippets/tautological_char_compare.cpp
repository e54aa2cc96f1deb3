// note: comparing an unsigned char with 300: clang++ warns the result is constant
// holes: V=1..200
#include <cstdio>

int main() {
    unsigned char c = @@V@@;
    std::printf("%d\n", c < 300);
    return 0;
}
