#include <iostream>

int main() {
    auto x{@@V@@};
    std::cout << sizeof(x) << std::endl;
    return 0;
}
