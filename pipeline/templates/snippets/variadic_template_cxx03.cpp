// note: variadic templates are C++11: C++03 warnings differ between g++ and clang++
// holes: A=1..9 B=1..9
#include <cstdio>

int total() {
    return 0;
}

template <typename T, typename... Rest>
int total(T first, Rest... rest) {
    return first + total(rest...);
}

int main() {
    std::printf("%d\n", total(@@A@@, @@B@@, 3));
    return 0;
}
