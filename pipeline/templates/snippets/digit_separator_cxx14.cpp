// note: the digit separator 1'000 is C++14: before that the quote opens a character constant
// holes: V=1..9
#include <cstdio>

int main() {
    int big = @@V@@'000;
    std::printf("%d\n", big);
    return 0;
}
