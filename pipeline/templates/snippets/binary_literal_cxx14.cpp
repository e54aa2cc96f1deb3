// note: binary literals are C++14: an extension warning before that, worded by each compiler
// holes: B=1010|1111|1001|0110
#include <cstdio>

int main() {
    int mask = 0b@@B@@;
    std::printf("%d\n", mask);
    return 0;
}
