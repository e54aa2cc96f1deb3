// note: float sum compared with its double copy: folding at -O1 and up may differ from the -O0 run
// holes: N=3..30
#include <cstdio>

int main() {
    float sum = 0.0f;
    for (int i = 1; i <= @@N@@; ++i) {
        sum += 1.0f / i;
    }
    double as_double = sum;
    std::printf("%d %.9g\n", sum == as_double, sum);
    return 0;
}
