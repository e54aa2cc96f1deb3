// note: `>>` closing two template lists is an error before C++11, worded differently by each compiler
// holes: V=1..9
#include <cstdio>
#include <vector>

int main() {
    std::vector<std::vector<int>> grid(@@V@@, std::vector<int>(2, 1));
    std::printf("%d\n", (int)grid.size());
    return 0;
}
