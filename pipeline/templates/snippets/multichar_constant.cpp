// note: a multi-character constant: implementation-defined value, warned with different headers
// holes: A=a|b|c B=x|y|z
#include <cstdio>

int main() {
    int tag = '@@A@@@@B@@';
    std::printf("%d\n", tag);
    return 0;
}
