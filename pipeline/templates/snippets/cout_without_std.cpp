// note: `cout` without std::: each compiler suggests the fix in its own words
// holes: V=1..99
#include <iostream>

int main() {
    int value = @@V@@;
    cout << value * 3 << std::endl;
    return 0;
}
