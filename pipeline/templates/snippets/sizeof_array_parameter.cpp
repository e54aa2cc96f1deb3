// note: sizeof on an array parameter is a pointer's size: clang++ warns by default
// holes: V=1..9
#include <cstdio>

int count(int values[10]) {
    return sizeof(values) / sizeof(values[0]);
}

int main() {
    int data[10] = {@@V@@};
    std::printf("%d %d\n", count(data), data[0]);
    return 0;
}
