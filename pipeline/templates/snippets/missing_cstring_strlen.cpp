// note: strlen without <cstring>: each compiler words the error its own way
// holes: W=alpha|branch|compile
#include <iostream>

int main() {
    const char *word = "@@W@@";
    std::cout << strlen(word) << std::endl;
    return 0;
}
