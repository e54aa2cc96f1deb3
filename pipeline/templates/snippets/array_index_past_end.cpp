// note: a constant index past the end: clang++ warns by default, and the read is undefined
// holes: V=1..9
#include <cstdio>

int main() {
    int values[4] = {@@V@@, 2, 3, 4};
    int guard = 7;
    std::printf("%d %d\n", values[0], guard);
    std::printf("%d\n", values[4] == guard);
    return 0;
}
