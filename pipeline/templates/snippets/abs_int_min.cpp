// note: abs(INT_MIN) overflows: -O2 may assume the result is not negative
// holes: V=1..9
#include <climits>
#include <cstdio>
#include <cstdlib>

int main() {
    volatile int low = INT_MIN;
    int a = std::abs(low);
    std::printf("%d %d\n", a < 0, @@V@@);
    return 0;
}
