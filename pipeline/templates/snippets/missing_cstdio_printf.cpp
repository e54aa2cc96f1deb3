// note: printf without <cstdio>: g++ and clang++ word the error differently (SURGE's own example)
// holes: N=10..999
#include <vector>
#include <numeric>

int main() {
    std::vector<int> v(@@N@@, 1);
    int sum = std::accumulate(v.begin(), v.end(), 0);
    printf("%d\n", sum);
    return 0;
}
