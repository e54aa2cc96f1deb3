#include <cstdio>

int main() {
    std::printf("%d\n", @@A@@ + @@B@@);
    return 0;
}
