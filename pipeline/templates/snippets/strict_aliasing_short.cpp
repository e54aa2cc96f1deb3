// note: writing through a short* aliasing an int: the optimiser may reuse the old int
// holes: V=2..99
#include <cstdio>

int update(int *word, short *half) {
    *word = @@V@@;
    *half = 0;
    return *word;
}

int main() {
    int w = 0;
    std::printf("%d\n", update(&w, reinterpret_cast<short *>(&w)));
    return 0;
}
