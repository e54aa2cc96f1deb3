// note: std::to_string needs C++11 and <string>: C++03 and the two compilers fail differently
// holes: V=1..999
#include <iostream>

int main() {
    std::string text = std::to_string(@@V@@);
    std::cout << text.size() << std::endl;
    return 0;
}
