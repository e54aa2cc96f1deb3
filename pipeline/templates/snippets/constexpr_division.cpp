// note: constexpr is no keyword in C++03, and g++ and clang++ word the division-by-zero error differently
// holes: A=1..9
#include <iostream>

constexpr int divide(int a, int b) {
    return a / b;
}

int main() {
    constexpr int result = divide(@@A@@, 0);
    std::cout << result << std::endl;
    return 0;
}
