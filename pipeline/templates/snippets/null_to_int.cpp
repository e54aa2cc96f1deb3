// note: NULL converted to int: both compilers warn, with different texts
// holes: V=1..99
#include <cstddef>
#include <cstdio>

int main() {
    int count = NULL;
    std::printf("%d\n", count + @@V@@);
    return 0;
}
