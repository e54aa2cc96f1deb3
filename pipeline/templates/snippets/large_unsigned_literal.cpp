// note: a decimal literal too large for long long: both warn, with different texts
// holes: V=1..9
#include <cstdio>

int main() {
    unsigned long long big = 18446744073709551615 - @@V@@;
    std::printf("%llu\n", big);
    return 0;
}
