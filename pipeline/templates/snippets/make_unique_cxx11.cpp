// note: std::make_unique is C++14: C++11 and C++03 fail, each compiler with its message
// holes: V=1..99
#include <cstdio>
#include <memory>

int main() {
    auto p = std::make_unique<int>(@@V@@);
    std::printf("%d\n", *p);
    return 0;
}
