// note: a lambda with an auto parameter is C++14: C++11 and C++03 reject or warn differently
// holes: V=1..99
#include <cstdio>

int main() {
    auto twice = [](auto x) { return x + x; };
    std::printf("%d\n", twice(@@V@@));
    return 0;
}
