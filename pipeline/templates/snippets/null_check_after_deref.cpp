// note: a null check after a dereference may be deleted by the optimiser
// holes: V=1..99
#include <cstdio>

int read(int *p) {
    int value = *p;
    if (p == nullptr)
        return -1;
    return value;
}

int main() {
    int x = @@V@@;
    std::printf("%d\n", read(&x));
    return 0;
}
