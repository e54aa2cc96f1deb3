// note: std::string_view is C++17: earlier standards do not declare it
// holes: W=abcdef|surgepipe|compiler
#include <cstdio>
#include <string_view>

int main() {
    std::string_view text = "@@W@@";
    std::printf("%d\n", (int)text.substr(2).size());
    return 0;
}
