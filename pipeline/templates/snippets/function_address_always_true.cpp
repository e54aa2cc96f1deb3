// note: testing a function's address: clang++ warns it is always true, g++ is silent
// holes: V=1..99
#include <cstdio>

int helper() {
    return @@V@@;
}

int main() {
    if (helper)
        std::printf("%d\n", helper());
    return 0;
}
