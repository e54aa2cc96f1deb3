// note: #warning: both print it, with different headers and flags
// holes: V=1..99
#include <cstdio>

#warning "value is @@V@@"

int main() {
    std::printf("%d\n", @@V@@);
    return 0;
}
