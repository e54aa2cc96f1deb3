// note: std::gcd is C++17: <numeric> declares it only then
// holes: A=12..99 B=12..99
#include <cstdio>
#include <numeric>

int main() {
    std::printf("%d\n", std::gcd(@@A@@, @@B@@));
    return 0;
}
