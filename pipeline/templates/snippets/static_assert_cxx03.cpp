// note: static_assert is C++11: accepted as an extension in C++03 by one compiler, rejected by the other
// holes: V=1..99
#include <cstdio>

static_assert(sizeof(int) == 4, "int is four bytes");

int main() {
    std::printf("%d\n", @@V@@);
    return 0;
}
