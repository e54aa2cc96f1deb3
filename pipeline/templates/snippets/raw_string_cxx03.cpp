// note: raw string literals are C++11: C++03 reads R"(...)" as an identifier and a string
// holes: W=a\b|c\d|x\y
#include <cstdio>

int main() {
    const char *path = R"(@@W@@)";
    std::printf("%s\n", path);
    return 0;
}
