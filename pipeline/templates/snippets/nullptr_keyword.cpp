#include <iostream>

int main() {
    int *p = nullptr;
    int value = @@V@@;
    std::cout << (p == 0 ? value : -value) << std::endl;
    return 0;
}
