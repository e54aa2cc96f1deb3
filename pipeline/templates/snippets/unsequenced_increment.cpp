#include <iostream>

int main() {
    int i = @@V@@;
    i = i++ + ++i;
    std::cout << i << std::endl;
    return 0;
}
