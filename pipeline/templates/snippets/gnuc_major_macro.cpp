// note: __GNUC__ is gcc's major version under g++ but 4 under clang++
// holes: V=1..99
#include <cstdio>

int main() {
    std::printf("%d %d\n", __GNUC__, @@V@@);
    return 0;
}
