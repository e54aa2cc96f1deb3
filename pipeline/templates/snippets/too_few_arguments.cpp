// note: a call with too few arguments: the candidate notes differ between compilers
// holes: V=1..99
#include <iostream>

int add(int a, int b, int c) {
    return a + b + c;
}

int main() {
    std::cout << add(@@V@@, 2) << std::endl;
    return 0;
}
