// note: `a[i] = i++`: unsequenced before C++17; the results differ by standard and compiler
// holes: V=0..2
#include <cstdio>

int main() {
    int a[4] = {0, 0, 0, 0};
    int i = @@V@@;
    a[i] = i++;
    std::printf("%d %d %d %d %d\n", a[0], a[1], a[2], a[3], i);
    return 0;
}
