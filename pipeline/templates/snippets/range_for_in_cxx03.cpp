// note: range-based for is C++11: a C++03 warning whose text depends on the compiler
// holes: A=1..9 B=1..9
#include <cstdio>

int main() {
    int values[3] = {@@A@@, @@B@@, 3};
    int sum = 0;
    for (int v : values)
        sum += v;
    std::printf("%d\n", sum);
    return 0;
}
