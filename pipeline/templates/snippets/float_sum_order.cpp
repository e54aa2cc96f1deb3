// note: float accumulation kept in a register or stored each step: -O levels may differ
// holes: N=10..60
#include <cstdio>

int main() {
    float total = 0.0f;
    for (int i = 0; i < @@N@@; ++i)
        total += 0.1f;
    std::printf("%.9g %d\n", total, total == @@N@@ * 0.1f);
    return 0;
}
