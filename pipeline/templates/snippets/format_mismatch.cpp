// note: printf %ld given an int: clang++ warns about the format by default, g++ does not
// holes: V=1..99
#include <cstdio>

int main() {
    int count = @@V@@;
    std::printf("%ld\n", (long)count);
    std::printf("%ld\n", count);
    return 0;
}
