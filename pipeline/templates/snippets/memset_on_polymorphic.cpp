// note: memset over an object with a vtable: clang++ warns about the vtable pointer by default
// holes: V=1..99
#include <cstdio>
#include <cstring>

struct Shape {
    virtual ~Shape() {}
    int sides;
};

int main() {
    Shape s;
    std::memset(&s, 0, sizeof(int));
    s.sides = @@V@@;
    std::printf("%d\n", s.sides);
    return 0;
}
