// note: ++ on a bool: deprecated before C++17 (warned differently), removed in C++17
// holes: V=0..1
#include <cstdio>

int main() {
    bool flag = @@V@@;
    flag++;
    std::printf("%d\n", flag);
    return 0;
}
