// note: __has_builtin answers for a builtin only clang++ has
// holes: V=1..99
#include <cstdio>

#ifndef __has_builtin
#define __has_builtin(x) 0
#endif

int main() {
#if __has_builtin(__builtin_bitreverse32)
    std::printf("%u\n", __builtin_bitreverse32(@@V@@u));
#else
    std::printf("no bitreverse %d\n", @@V@@);
#endif
    return 0;
}
