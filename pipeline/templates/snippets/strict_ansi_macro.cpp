// note: -std=c++NN defines __STRICT_ANSI__ in both compilers, but __GXX_EXPERIMENTAL_CXX0X__ only in C++11+
// holes: V=1..99
#include <cstdio>

int main() {
#ifdef __GXX_EXPERIMENTAL_CXX0X__
    std::printf("cxx0x %d\n", @@V@@);
#else
    std::printf("plain %d\n", @@V@@);
#endif
    return 0;
}
