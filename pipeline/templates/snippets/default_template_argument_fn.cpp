// note: default template arguments of a function are C++11: a C++03 warning or error
// holes: V=1..99
#include <cstdio>

template <typename T = int>
T zero_plus(T x) {
    return x;
}

int main() {
    std::printf("%d\n", zero_plus(@@V@@));
    return 0;
}
