// note: the operands of << are sequenced left to right only from C++17: g++ differs before
// holes: V=1..9
#include <iostream>

int next(int &counter) {
    return ++counter;
}

int main() {
    int counter = @@V@@;
    std::cout << next(counter) << " " << next(counter) << std::endl;
    return 0;
}
