// note: std::exchange is C++14: earlier standards fail, each compiler in its words
// holes: V=1..99
#include <cstdio>
#include <utility>

int main() {
    int slot = @@V@@;
    int old = std::exchange(slot, 0);
    std::printf("%d %d\n", old, slot);
    return 0;
}
