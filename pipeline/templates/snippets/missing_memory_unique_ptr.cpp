// note: std::unique_ptr with only <vector>: the standard decides whether <memory>'s parts come along
// holes: V=1..99
#include <cstdio>
#include <vector>

int main() {
    std::unique_ptr<int> p(new int(@@V@@));
    std::printf("%d\n", *p);
    return 0;
}
