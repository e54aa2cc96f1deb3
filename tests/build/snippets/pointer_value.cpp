// note: none: prints an address, which changes from run to run (a control the stability check drops)
// holes: V=1..99
#include <cstdio>

int main() {
    int local = @@V@@;
    std::printf("%p %d\n", (void *)&local, local);
    return 0;
}
