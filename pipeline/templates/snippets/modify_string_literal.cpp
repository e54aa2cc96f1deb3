// note: writing into a string literal is undefined: it crashes, or the optimiser keeps the old text
// holes: C=x|y|z
#include <cstdio>

int main() {
    char *text = const_cast<char *>("abc");
    std::printf("%s\n", text);
    std::fflush(stdout);
    text[0] = '@@C@@';
    std::printf("%s\n", text);
    return 0;
}
