// note: trigraphs: replaced in strict C++03/11/14 modes, gone in C++17 (and clang++ warns)
// holes: V=1..9
#include <cstdio>

int main() {
    std::printf("??= @@V@@\n");
    return 0;
}
