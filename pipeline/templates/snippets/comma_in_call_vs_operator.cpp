// note: the arguments of a call that both modify x are unsequenced: each compiler orders them
// holes: V=1..9
#include <cstdio>

int show(int a, int b) {
    return a * 10 + b;
}

int main() {
    int x = @@V@@;
    std::printf("%d\n", show(x++, x++));
    return 0;
}
