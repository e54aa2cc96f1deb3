// note: [[fallthrough]] is C++17: earlier standards warn about the attribute, differently
// holes: V=0..2
#include <cstdio>

int main() {
    int n = @@V@@, hits = 0;
    switch (n) {
    case 0:
        hits += 1;
        [[fallthrough]];
    case 1:
        hits += 10;
        break;
    default:
        hits = -1;
    }
    std::printf("%d\n", hits);
    return 0;
}
