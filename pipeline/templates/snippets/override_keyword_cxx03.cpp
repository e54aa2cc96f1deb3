// note: override is C++11: C++03 warns about it as an extension, differently per compiler
// holes: V=1..99
#include <cstdio>

struct Base {
    virtual int value() const { return 0; }
    virtual ~Base() {}
};

struct Derived : Base {
    int value() const override { return @@V@@; }
};

int main() {
    Derived d;
    const Base &b = d;
    std::printf("%d\n", b.value());
    return 0;
}
