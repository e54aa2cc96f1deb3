// note: std::random_shuffle is deprecated from C++14: libstdc++ warns, per compiler in its words
// holes: N=4..9
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    std::vector<int> v;
    for (int i = 0; i < @@N@@; ++i)
        v.push_back(i);
    std::random_shuffle(v.begin(), v.end());
    std::printf("%d\n", (int)v.size());
    return 0;
}
