// note: a long long constant wider than long in C++03: clang++ warns it is a C++11 feature
// holes: V=1..9
#include <cstdio>

int main() {
    long long big = 123456789012LL * @@V@@;
    std::printf("%lld\n", big);
    return 0;
}
