// note: abs() from <cstdlib> on a double: clang++ warns it truncates, g++ is silent
// holes: V=1..9
#include <cstdio>
#include <cstdlib>

int main() {
    double x = -@@V@@.5;
    std::printf("%d\n", (int)abs(x));
    return 0;
}
