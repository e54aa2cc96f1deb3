// note: structured bindings are C++17: earlier standards warn or reject, each compiler in its words
// holes: A=1..9 B=1..9
#include <cstdio>
#include <utility>

int main() {
    std::pair<int, int> p(@@A@@, @@B@@);
    auto [first, second] = p;
    std::printf("%d\n", first * 10 + second);
    return 0;
}
