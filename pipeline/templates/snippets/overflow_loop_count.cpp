// note: a signed counter that overflows: -O2 assumes it never does and counts differently
// holes: V=1..9
#include <climits>
#include <cstdio>

int main() {
    int steps = 0;
    for (int i = INT_MAX - @@V@@; i > 0 && steps < 100; ++i)
        ++steps;
    std::printf("%d\n", steps);
    return 0;
}
