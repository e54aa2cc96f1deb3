#include <iostream>

constexpr int divide(int a, int b) {
    return a / b;
}

int main() {
    constexpr int result = divide(@@A@@, 0);
    std::cout << result << std::endl;
    return 0;
}
