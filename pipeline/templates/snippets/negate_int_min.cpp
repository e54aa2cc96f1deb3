// note: negating INT_MIN overflows: the optimiser may fold `-x < 0` for x < 0 to true
// holes: V=1..9
#include <climits>
#include <cstdio>

bool flips(int x) {
    return x < 0 && -x > 0;
}

int main() {
    volatile int low = INT_MIN;
    std::printf("%d %d\n", flips(low), @@V@@);
    return 0;
}
