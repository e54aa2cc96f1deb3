// note: __PRETTY_FUNCTION__ spells template arguments differently in g++ and clang++
// holes: T=int|long|char|double
#include <cstdio>

template <typename T>
void name_of(T) {
    std::printf("%s\n", __PRETTY_FUNCTION__);
}

int main() {
    name_of(@@T@@(1));
    return 0;
}
