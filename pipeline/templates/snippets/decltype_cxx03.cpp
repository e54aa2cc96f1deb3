// note: decltype is C++11: in C++03 g++ and clang++ treat it differently
// holes: V=1..99
#include <cstdio>

int main() {
    int x = @@V@@;
    decltype(x) y = x + 1;
    std::printf("%d\n", y);
    return 0;
}
