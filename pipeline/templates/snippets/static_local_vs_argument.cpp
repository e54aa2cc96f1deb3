// note: which of two initialisations in one call runs first is unspecified
// holes: V=1..9
#include <cstdio>

int step = 0;

int first() {
    step = step * 10 + 1;
    return step;
}

int second() {
    step = step * 10 + 2;
    return step;
}

int combine(int a, int b) {
    return a + b;
}

int main() {
    step = @@V@@;
    int r = combine(first(), second());
    std::printf("%d %d\n", r, step);
    return 0;
}
