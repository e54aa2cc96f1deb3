// note: 0 * inf is a NaN: printed as -nan when x86 computes it, as nan when the optimiser folds it
// holes: V=1..9
#include <cstdio>

float product(float a, float b) {
    return a * b;
}

int main() {
    float huge = 1e30f * 1e30f;
    std::printf("%f %d\n", (double)product(0.0f, huge), @@V@@);
    return 0;
}
