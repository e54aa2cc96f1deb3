// note: NaN compared with itself: -O levels fold `x != x` but both keep IEEE semantics (control-like)
// holes: V=1..9
#include <cmath>
#include <cstdio>

int main() {
    volatile double zero = 0.0;
    double nan = zero / zero;
    std::printf("%d %d %f\n", nan != nan, std::isnan(nan), nan * @@V@@);
    return 0;
}
