// note: reading a local after its scope ended: the stack slot is reused differently per -O
// holes: V=1..99
#include <cstdio>

int main() {
    int *p;
    {
        int inner = @@V@@;
        p = &inner;
    }
    int other = 7;
    std::printf("%d %d\n", *p == @@V@@, other);
    return 0;
}
