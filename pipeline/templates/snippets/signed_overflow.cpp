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
