// note: u8 character literals are C++17: earlier standards reject u8'a'
// holes: C=a|b|z|q
#include <cstdio>

int main() {
    char c = u8'@@C@@';
    std::printf("%d\n", c);
    return 0;
}
