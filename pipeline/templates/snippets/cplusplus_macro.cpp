#include <iostream>

int main() {
    std::cout << (__cplusplus / @@D@@) << std::endl;
    return 0;
}
