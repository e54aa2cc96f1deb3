// note: a switch missing an enumerator: clang++ warns by default, g++ only with -Wall
// holes: V=0..2
#include <cstdio>

enum Colour { Red, Green, Blue };

int main() {
    Colour c = static_cast<Colour>(@@V@@);
    switch (c) {
    case Red:
        std::printf("red\n");
        break;
    case Green:
        std::printf("green\n");
        break;
    }
    std::printf("done\n");
    return 0;
}
