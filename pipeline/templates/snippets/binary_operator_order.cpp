// note: the operands of + are unsequenced: which call prints first depends on the compiler
// holes: V=1..9
#include <cstdio>

int left() {
    std::printf("left\n");
    return 1;
}

int right() {
    std::printf("right\n");
    return @@V@@;
}

int main() {
    int total = left() + right() * 2;
    std::printf("%d\n", total);
    return 0;
}
