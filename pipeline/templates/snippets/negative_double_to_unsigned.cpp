// note: converting a negative double to unsigned is undefined: run time and folding disagree
// holes: V=1..9
#include <cstdio>

unsigned convert(double d) {
    return static_cast<unsigned>(d);
}

int main() {
    std::printf("%u\n", convert(-@@V@@.5));
    return 0;
}
