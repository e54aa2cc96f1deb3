// note: shifting an int by 40 in a constant: both warn differently, and the folded value is undefined
// holes: V=1..9
#include <cstdio>

int main() {
    int big = @@V@@ << 40;
    std::printf("%d\n", big);
    return 0;
}
