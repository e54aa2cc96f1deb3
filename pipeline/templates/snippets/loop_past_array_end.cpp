// note: a loop reading one past the array is undefined: -O2 may treat it as endless or cut it short
// holes: V=1..9
#include <cstdio>

int table[4] = {1, 2, 3, 4};

bool contains(int v) {
    for (int i = 0; i <= 4; ++i)
        if (table[i] == v)
            return true;
    return false;
}

int main() {
    std::printf("%d\n", contains(@@V@@ + 10));
    return 0;
}
