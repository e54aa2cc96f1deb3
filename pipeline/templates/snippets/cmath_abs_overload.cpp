// note: std::abs(double) in <cmath>: with <cstdlib> only, C++03 and C++11 pick different overloads
// holes: V=1..9
#include <cstdio>
#include <cstdlib>

int main() {
    double x = -@@V@@.75;
    std::printf("%.2f\n", (double)std::abs(x));
    return 0;
}
