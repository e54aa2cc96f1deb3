// note: INT_MAX with only <iostream>: declared or not depending on transitive includes
// holes: V=1..9
#include <iostream>

int main() {
    std::cout << INT_MAX / @@V@@ << std::endl;
    return 0;
}
