// note: a goto that jumps over an initialisation: both reject it, in different words
// holes: V=1..99
#include <iostream>

int main() {
    int n = @@V@@;
    if (n > 0)
        goto done;
    int doubled = n * 2;
    std::cout << doubled << std::endl;
done:
    std::cout << n << std::endl;
    return 0;
}
