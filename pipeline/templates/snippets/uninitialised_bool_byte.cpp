// note: a bool holding the byte 2 is undefined: tests of it disagree between -O levels
// holes: V=2..9
#include <cstdio>
#include <cstring>

int main() {
    unsigned char raw = @@V@@;
    bool flag;
    std::memcpy(&flag, &raw, 1);
    std::printf("%d %d\n", flag == true, flag ? 1 : 0);
    return 0;
}
