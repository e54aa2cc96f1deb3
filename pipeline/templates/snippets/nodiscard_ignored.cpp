// note: discarding a [[nodiscard]] result: warned in C++17, an unknown or extension attribute before
// holes: V=1..99
#include <cstdio>

[[nodiscard]] int compute(int x) {
    return x * 3;
}

int main() {
    compute(@@V@@);
    std::printf("%d\n", compute(@@V@@));
    return 0;
}
