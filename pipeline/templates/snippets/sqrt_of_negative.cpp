// note: sqrt(-x): the library call at -O0 and a folded constant print the NaN's sign differently
// holes: V=1..9
#include <cmath>
#include <cstdio>

int main() {
    double x = -@@V@@.0;
    std::printf("%f\n", std::sqrt(x));
    return 0;
}
