// note: lambdas are C++11: in C++03 g++ and clang++ accept them with different warnings
// holes: V=1..99
#include <cstdio>

int main() {
    int base = @@V@@;
    int result = [&](int x) { return base + x; }(1);
    std::printf("%d\n", result);
    return 0;
}
