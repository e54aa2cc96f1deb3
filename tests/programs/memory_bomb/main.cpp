#include <vector>
#include <cstdio>
int main() {
    std::vector<std::vector<char>> hog;
    for (;;) hog.emplace_back(16 << 20, 'x');  // 16 MiB at a time, touched
}
