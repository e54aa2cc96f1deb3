// note: __PRETTY_FUNCTION__ of a const member: g++ and clang++ format it differently
// holes: V=1..99
#include <cstdio>

struct Widget {
    int size() const {
        std::printf("%s\n", __PRETTY_FUNCTION__);
        return @@V@@;
    }
};

int main() {
    Widget w;
    std::printf("%d\n", w.size());
    return 0;
}
