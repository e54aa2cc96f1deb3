// note: #pragma message: g++ prints a note, clang++ a warning, each in its format
// holes: W=building|checking|linking
#include <cstdio>

#pragma message("@@W@@ the demo")

int main() {
    std::printf("ok\n");
    return 0;
}
