// note: constexpr is no keyword in C++03: two different errors, then the value from C++11 on
// holes: V=1..99
#include <cstdio>

constexpr int square(int x) {
    return x * x;
}

int main() {
    std::printf("%d\n", square(@@V@@));
    return 0;
}
