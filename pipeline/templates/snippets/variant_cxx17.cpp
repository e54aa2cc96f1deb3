// note: std::variant is C++17: <variant> declares nothing before
// holes: V=1..99
#include <cstdio>
#include <variant>

int main() {
    std::variant<int, double> value = @@V@@;
    std::printf("%d\n", (int)value.index());
    return 0;
}
