// note: enum class is C++11: warned as an extension in C++03, with different texts
// holes: V=0..2
#include <cstdio>

enum class Level { Low, Mid, High };

int main() {
    Level level = static_cast<Level>(@@V@@);
    std::printf("%d\n", level == Level::Mid ? 1 : 0);
    return 0;
}
