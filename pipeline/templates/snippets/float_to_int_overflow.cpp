// note: converting 1e10 to int is undefined: the x86 instruction gives INT_MIN, folding saturates or leaves garbage
// holes: V=1..9
#include <cstdio>

int convert(double d) {
    return static_cast<int>(d);
}

int main() {
    std::printf("%d\n", convert(@@V@@e10));
    return 0;
}
