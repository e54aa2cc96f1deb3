// note: std::bind1st is deprecated in C++11 and removed in C++17: libstdc++ warns under each compiler
// holes: V=1..99
#include <cstdio>
#include <functional>

int main() {
    std::binder1st<std::plus<int> > add = std::bind1st(std::plus<int>(), @@V@@);
    std::printf("%d\n", add(1));
    return 0;
}
