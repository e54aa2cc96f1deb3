// note: std::sort with only <vector>: whether it is declared depends on transitive includes
// holes: A=1..9 B=1..9
#include <cstdio>
#include <vector>

int main() {
    std::vector<int> v;
    v.push_back(@@A@@);
    v.push_back(@@B@@);
    v.push_back(5);
    std::sort(v.begin(), v.end());
    std::printf("%d %d\n", v.front(), v.back());
    return 0;
}
