// note: `auto f()` without a trailing return type is C++14: g++ warns in C++11, clang++ errors
// holes: V=1..99
#include <cstdio>

auto half(int x) {
    return x / 2;
}

int main() {
    std::printf("%d\n", half(@@V@@));
    return 0;
}
