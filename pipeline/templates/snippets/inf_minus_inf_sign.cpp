// note: inf - inf is a NaN whose sign depends on whether the CPU or the constant folder made it
// holes: V=1..9
#include <cstdio>
#include <limits>

double difference(double a, double b) {
    return a - b;
}

int main() {
    double inf = std::numeric_limits<double>::infinity();
    std::printf("%f %d\n", difference(inf, inf), @@V@@);
    return 0;
}
