#include <cstdio>

int main() {
    int local = @@V@@;
    std::printf("%p %d\n", (void *)&local, local);
    return 0;
}
