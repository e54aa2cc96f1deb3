// note: std::size is C++17: earlier standards have no such function
// holes: N=2..9
#include <cstdio>
#include <iterator>

int main() {
    int values[@@N@@] = {};
    std::printf("%d\n", (int)std::size(values));
    return 0;
}
