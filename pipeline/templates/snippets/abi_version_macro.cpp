// note: __GXX_ABI_VERSION differs between g++ and clang++
// holes: V=1..99
#include <cstdio>

int main() {
    std::printf("%d %d\n", __GXX_ABI_VERSION, @@V@@);
    return 0;
}
