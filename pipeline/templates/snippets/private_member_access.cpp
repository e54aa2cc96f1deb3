// note: reading a private member: g++ and clang++ name the access error differently
// holes: V=1..99
#include <iostream>

class Counter {
    int count;
public:
    Counter() : count(@@V@@) {}
};

int main() {
    Counter c;
    std::cout << c.count << std::endl;
    return 0;
}
