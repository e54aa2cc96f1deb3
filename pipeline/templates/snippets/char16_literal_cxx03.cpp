// note: char16_t and u"" literals are C++11: C++03 rejects them differently
// holes: V=1..9
#include <cstdio>

int main() {
    const char16_t *text = u"abc";
    std::printf("%d %d\n", (int)text[1], @@V@@);
    return 0;
}
