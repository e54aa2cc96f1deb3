// note: calling a [[deprecated]] function: warned in each compiler's words (and as an extension in C++11)
// holes: V=1..99
#include <cstdio>

[[deprecated("use twice()")]] int double_it(int x) {
    return x * 2;
}

int main() {
    std::printf("%d\n", double_it(@@V@@));
    return 0;
}
