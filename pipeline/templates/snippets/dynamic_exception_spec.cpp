// note: throw(int) specifications: deprecated in C++11/14 with warnings, an error in C++17
// holes: V=1..99
#include <cstdio>

int checked(int x) throw(int) {
    if (x < 0)
        throw x;
    return x + 1;
}

int main() {
    std::printf("%d\n", checked(@@V@@));
    return 0;
}
