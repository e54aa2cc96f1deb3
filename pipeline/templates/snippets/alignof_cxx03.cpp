// note: alignof is C++11: C++03 accepts it as an extension in one compiler only
// holes: V=1..99
#include <cstdio>

int main() {
    std::printf("%d %d\n", (int)alignof(double), @@V@@);
    return 0;
}
