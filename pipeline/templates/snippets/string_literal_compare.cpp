// note: comparing with a string literal by address: clang++ warns; pooling decides the result
// holes: W=alpha|beta|gamma
#include <cstdio>

int main() {
    const char *name = "@@W@@";
    if (name == "@@W@@")
        std::printf("same\n");
    else
        std::printf("different\n");
    return 0;
}
