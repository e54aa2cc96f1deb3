// note: returning a reference to a local: both warn; g++ returns null, clang++ a dangling address
// holes: V=1..99
#include <cstdio>

const int &pick(int x) {
    int local = x * 2;
    return local;
}

int main() {
    const int &r = pick(@@V@@);
    std::printf("%d\n", &r == nullptr ? -1 : 1);
    return 0;
}
