// note: noexcept is part of the function type only from C++17: the overload chosen changes
// holes: V=1..99
#include <cstdio>

void quiet() noexcept {}

template <typename F>
int kind(F *) {
    return 1;
}

int kind(void (*)()) {
    return 2;
}

int main() {
    std::printf("%d %d\n", kind(&quiet), @@V@@);
    return 0;
}
