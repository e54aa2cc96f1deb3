// note: if constexpr is C++17: an extension warning before that, absent in C++17
// holes: V=1..99
#include <cstdio>

template <typename T>
int describe(T value) {
    if constexpr (sizeof(T) == 1)
        return 1;
    else
        return (int)value;
}

int main() {
    std::printf("%d\n", describe(@@V@@));
    return 0;
}
