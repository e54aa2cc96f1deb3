// note: signed overflow is undefined: -O1 and up fold `x + J > x` to true
// holes: K=1..50 J=1..50
#include <climits>
#include <cstdio>

bool grows(int x) {
    return x + @@J@@ > x;
}

int main() {
    int x = INT_MAX - @@K@@ + 1;
    std::printf("%d\n", grows(x + @@K@@ - 1) ? 1 : 0);
    return 0;
}
