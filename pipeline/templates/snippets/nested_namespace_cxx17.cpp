// note: `namespace a::b` is C++17: warned as an extension before, in each compiler's words
// holes: V=1..99
#include <cstdio>

namespace outer::inner {
int value() {
    return @@V@@;
}
}

int main() {
    std::printf("%d\n", outer::inner::value());
    return 0;
}
