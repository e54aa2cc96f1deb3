// note: std::auto_ptr: fine in C++03, deprecated with warnings from C++11 (texts differ per compiler)
// holes: V=1..99
#include <cstdio>
#include <memory>

int main() {
    std::auto_ptr<int> owner(new int(@@V@@));
    std::printf("%d\n", *owner);
    return 0;
}
