// note: returning a prvalue of a non-movable type needs C++17's guaranteed elision
// holes: V=1..99
#include <cstdio>

struct Token {
    int id;
    explicit Token(int i) : id(i) {}
    Token(const Token &) = delete;
    Token(Token &&) = delete;
};

Token make(int id) {
    return Token(id);
}

int main() {
    Token t = make(@@V@@);
    std::printf("%d\n", t.id);
    return 0;
}
