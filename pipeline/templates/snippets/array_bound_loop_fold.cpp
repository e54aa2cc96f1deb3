// note: a loop that reads past the array end is undefined: -O2 may drop the exit test
// holes: N=5..8
#include <cstdio>

int main() {
    int data[4] = {1, 2, 3, 4};
    int count = 0;
    for (int i = 0; i < @@N@@; ++i) {
        if (data[i % 8] > 100)
            break;
        ++count;
    }
    std::printf("%d\n", count > 4);
    return 0;
}
