// note: the sign bit of 0/0: x86 makes a negative NaN at run time, constant folding a positive one
// holes: V=1..9
#include <cmath>
#include <cstdio>

double ratio(double a, double b) {
    return a / b;
}

int main() {
    double nan = ratio(0.0, 0.0);
    std::printf("%d %d\n", (int)std::signbit(nan), @@V@@);
    return 0;
}
