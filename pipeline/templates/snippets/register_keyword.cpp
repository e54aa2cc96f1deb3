#include <iostream>

int main() {
    register int x = @@V@@;
    std::cout << x * 2 << std::endl;
    return 0;
}
