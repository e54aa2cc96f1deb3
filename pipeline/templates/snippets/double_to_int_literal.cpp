// note: clang++ warns when a literal 3.7 is cut to int; g++ says nothing
// holes: V=1..9
#include <cstdio>

int main() {
    int whole = @@V@@.75;
    std::printf("%d\n", whole);
    return 0;
}
