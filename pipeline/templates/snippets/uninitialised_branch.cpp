// note: branching on an uninitialised int: the optimiser may pick both or neither path
// holes: V=1..9
#include <cstdio>

int classify(int flag) {
    int state;
    if (flag > 100)
        state = 1;
    if (state == 1)
        return 10;
    return @@V@@;
}

int main() {
    std::printf("%d\n", classify(@@V@@));
    return 0;
}
