// note: std::clamp is C++17: <algorithm> declares it only then
// holes: V=1..99
#include <algorithm>
#include <cstdio>

int main() {
    std::printf("%d\n", std::clamp(@@V@@, 10, 50));
    return 0;
}
