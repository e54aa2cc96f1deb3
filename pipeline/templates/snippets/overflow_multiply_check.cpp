// note: a product compared after signed overflow: folded at -O1 and up
// holes: V=2..9
#include <climits>
#include <cstdio>

bool doubles_safely(int x) {
    return x * @@V@@ / @@V@@ == x;
}

int main() {
    volatile int big = INT_MAX / 2 + 1;
    std::printf("%d\n", doubles_safely(big));
    return 0;
}
