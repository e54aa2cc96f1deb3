// note: `m[k] = m.size()`: C++17 evaluates the right side first; before that g++ inserts first
// holes: K=1..9
#include <cstdio>
#include <map>

int main() {
    std::map<int, int> sizes;
    sizes[@@K@@] = sizes.size();
    std::printf("%d\n", sizes[@@K@@]);
    return 0;
}
