// note: `auto x = V` is a storage class in C++03: g++ rejects it, clang++ accepts it as an extension
// holes: V=1..99
#include <cstdio>

int main() {
    auto x = @@V@@;
    std::printf("%d\n", x * 2);
    return 0;
}
