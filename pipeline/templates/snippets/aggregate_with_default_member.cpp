// note: a struct with a default member initialiser is an aggregate only from C++14
// holes: A=1..9 B=1..9
#include <cstdio>

struct Pair {
    int first = 1;
    int second;
};

int main() {
    Pair p = {@@A@@, @@B@@};
    std::printf("%d\n", p.first + p.second);
    return 0;
}
