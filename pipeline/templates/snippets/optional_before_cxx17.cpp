// note: std::optional exists from C++17: before, <optional> declares nothing and the errors differ
// holes: V=1..99
#include <cstdio>
#include <optional>

int main() {
    std::optional<int> maybe = @@V@@;
    std::printf("%d\n", maybe.value_or(0));
    return 0;
}
