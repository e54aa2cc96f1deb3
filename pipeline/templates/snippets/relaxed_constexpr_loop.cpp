// note: a loop in a constexpr function needs C++14: C++11 rejects it, each compiler in its words
// holes: N=3..12
#include <cstdio>

constexpr int triangle(int n) {
    int sum = 0;
    for (int i = 1; i <= n; ++i)
        sum += i;
    return sum;
}

int main() {
    constexpr int value = triangle(@@N@@);
    std::printf("%d\n", value);
    return 0;
}
