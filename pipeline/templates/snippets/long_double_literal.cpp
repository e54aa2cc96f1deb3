// note: a long double constant printed through double: folding and the x87 path may differ
// holes: V=1..9
#include <cstdio>

long double tenth(long double x) {
    return x / 10.0L;
}

int main() {
    double d = (double)tenth(@@V@@.0L);
    std::printf("%.17g %d\n", d, d == @@V@@ / 10.0);
    return 0;
}
