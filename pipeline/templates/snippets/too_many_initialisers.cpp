// note: an array with more initialisers than elements: the error text differs
// holes: V=1..99
#include <iostream>

int main() {
    int pair[2] = {@@V@@, 2, 3};
    std::cout << pair[0] << std::endl;
    return 0;
}
