// note: std::iota without <numeric>: the error and its note differ between compilers
// holes: N=3..9
#include <cstdio>
#include <vector>

int main() {
    std::vector<int> v(@@N@@);
    std::iota(v.begin(), v.end(), 1);
    std::printf("%d\n", v.back());
    return 0;
}
