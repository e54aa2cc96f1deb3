// note: writing past a char buffer is undefined: the neighbour it clobbers depends on the layout
// holes: V=1..9
#include <cstdio>
#include <cstring>

struct Record {
    char name[4];
    int id;
};

int main() {
    Record r;
    r.id = @@V@@;
    std::strcpy(r.name, "abcd");
    std::printf("%d\n", r.id == @@V@@);
    return 0;
}
