// note: function argument evaluation order is unspecified: g++ goes right to left, clang++ left to right
// holes: V=1..9
#include <cstdio>

int counter = 0;

int next() {
    return ++counter;
}

int main() {
    counter = @@V@@;
    std::printf("%d %d\n", next(), next());
    return 0;
}
