// note: __cplusplus names the -std level
// holes: D=1|100|10000
#include <iostream>

int main() {
    std::cout << (__cplusplus / @@D@@) << std::endl;
    return 0;
}
