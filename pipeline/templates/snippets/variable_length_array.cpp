// note: a variable-length array is a GNU extension: clang++ 19 warns about it, g++ is silent
// holes: V=2..9
#include <cstdio>

int main() {
    int n = @@V@@;
    int squares[n];
    for (int i = 0; i < n; ++i)
        squares[i] = i * i;
    std::printf("%d\n", squares[n - 1]);
    return 0;
}
