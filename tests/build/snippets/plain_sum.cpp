// note: none: the same under every setting (a control the differential filter drops)
// holes: A=1..999 B=1..999
#include <cstdio>

int main() {
    std::printf("%d\n", @@A@@ + @@B@@);
    return 0;
}
