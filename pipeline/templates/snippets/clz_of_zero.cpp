// note: __builtin_clz(0) is undefined: the instruction and the folded constant disagree
// holes: V=1..9
#include <cstdio>

int leading(unsigned v) {
    return __builtin_clz(v);
}

int main() {
    std::printf("%d %d\n", leading(0), leading(@@V@@));
    return 0;
}
