// note: __VERSION__ names the compiler that built the program
// holes: N=3..6
#include <cstdio>

int main() {
    std::printf("%.@@N@@s\n", __VERSION__);
    return 0;
}
