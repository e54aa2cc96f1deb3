// note: the order of a constructor's argument evaluations is unspecified: g++ and clang++ differ
// holes: V=1..9
#include <cstdio>

struct Pair {
    int a, b;
    Pair(int x, int y) : a(x), b(y) {}
};

int tick(int &n) {
    return n++;
}

int main() {
    int n = @@V@@;
    Pair p(tick(n), tick(n));
    std::printf("%d %d\n", p.a, p.b);
    return 0;
}
