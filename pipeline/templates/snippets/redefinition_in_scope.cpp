// note: a variable defined twice in one scope: two different error texts
// holes: V=1..99
#include <iostream>

int main() {
    int total = @@V@@;
    int total = 2;
    std::cout << total << std::endl;
    return 0;
}
