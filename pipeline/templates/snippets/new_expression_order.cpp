// note: in `new T(f())` whether allocation or f() runs first is unspecified
// holes: V=1..9
#include <cstdio>
#include <cstdlib>
#include <new>

int allocations = 0;

void *operator new(std::size_t size) {
    ++allocations;
    void *p = std::malloc(size);
    if (!p)
        throw std::bad_alloc();
    return p;
}

void operator delete(void *p) noexcept {
    std::free(p);
}

int seen() {
    return allocations;
}

int main() {
    int *p = new int(seen() + @@V@@);
    std::printf("%d\n", *p);
    delete p;
    return 0;
}
