// note: a typename outside a template is an error only before C++11
// holes: V=1..99
#include <cstdio>
#include <vector>

int main() {
    typename std::vector<int>::size_type n = @@V@@;
    std::printf("%d\n", (int)n);
    return 0;
}
