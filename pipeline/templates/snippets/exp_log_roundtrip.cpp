// note: exp(log(x)) folded exactly at compile time or computed by the library at run time
// holes: V=2..99
#include <cmath>
#include <cstdio>

int main() {
    double x = @@V@@.3;
    double back = std::exp(std::log(x));
    std::printf("%.17g %d\n", back, back == x);
    return 0;
}
