// note: INT_MAX + V in a constant: both warn, each in its own words
// holes: V=1..9
#include <climits>
#include <cstdio>

int main() {
    int wrapped = INT_MAX + @@V@@;
    std::printf("%d\n", wrapped < 0);
    return 0;
}
