// note: `auto x{V}` is std::initializer_list<int> before C++17 (N3922) and int from C++17
// holes: V=1..99
#include <iostream>

int main() {
    auto x{@@V@@};
    std::cout << sizeof(x) << std::endl;
    return 0;
}
