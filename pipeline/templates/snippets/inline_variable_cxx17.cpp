// note: inline variables are C++17: an extension warning before that
// holes: V=1..99
#include <cstdio>

inline int counter = @@V@@;

int main() {
    counter += 1;
    std::printf("%d\n", counter);
    return 0;
}
