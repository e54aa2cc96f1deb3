// note: pow(x, 0.5) folded at compile time versus the library call
// holes: V=2..99
#include <cmath>
#include <cstdio>

int main() {
    double x = @@V@@.0;
    std::printf("%.17g %d\n", std::pow(x, 0.5), std::pow(x, 0.5) == std::sqrt(x));
    return 0;
}
