// note: `i = i++ + ++i` is unsequenced: g++ and clang++ order the side effects differently (clang++ also warns)
// holes: V=1..20
#include <iostream>

int main() {
    int i = @@V@@;
    i = i++ + ++i;
    std::cout << i << std::endl;
    return 0;
}
