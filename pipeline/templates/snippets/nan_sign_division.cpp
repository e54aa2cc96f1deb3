// note: 0/0 at run time is x86's default NaN (negative), folded at compile time it may print as nan
// holes: V=1..9
#include <cstdio>

double ratio(double a, double b) {
    return a / b;
}

int main() {
    std::printf("%f %d\n", ratio(0.0, 0.0), @@V@@);
    return 0;
}
