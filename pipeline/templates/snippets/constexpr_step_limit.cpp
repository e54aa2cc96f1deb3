// note: a constexpr loop of 400000 steps: past g++'s loop limit, within clang++'s step budget (C++14)
// holes: V=1..9
#include <cstdio>

constexpr long spin(long n) {
    long total = 0;
    for (long i = 0; i < n; ++i)
        total += i % 3;
    return total;
}

int main() {
    constexpr long value = spin(400000);
    std::printf("%ld %d\n", value, @@V@@);
    return 0;
}
