// note: writing to a const object through const_cast: the compiler may keep using the constant
// holes: V=1..99
#include <cstdio>

int main() {
    const int limit = @@V@@;
    int *p = const_cast<int *>(&limit);
    *p = limit + 1;
    std::printf("%d %d\n", limit, *p);
    return 0;
}
