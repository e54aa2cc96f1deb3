// note: a pointer converted to bool in a call: clang++ warns about a string to bool conversion
// holes: V=1..99
#include <cstdio>

void show(bool flag, int value) {
    std::printf("%d %d\n", flag, value);
}

int main() {
    show("false", @@V@@);
    return 0;
}
