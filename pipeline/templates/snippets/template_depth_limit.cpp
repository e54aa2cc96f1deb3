// note: template recursion 950 deep: past g++'s limit of 900, within clang++'s 1024
// holes: V=1..9
#include <cstdio>

template <int N>
struct Count {
    static const int value = Count<N - 1>::value + 1;
};

template <>
struct Count<0> {
    static const int value = 0;
};

int main() {
    std::printf("%d\n", Count<950>::value + @@V@@);
    return 0;
}
