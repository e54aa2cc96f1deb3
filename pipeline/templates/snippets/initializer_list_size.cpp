// note: std::initializer_list is C++11: C++03 has no brace lists for a vector
// holes: A=1..9 B=1..9
#include <cstdio>
#include <vector>

int main() {
    std::vector<int> v = {@@A@@, @@B@@, 3, 4};
    std::printf("%d %d\n", (int)v.size(), v[0]);
    return 0;
}
