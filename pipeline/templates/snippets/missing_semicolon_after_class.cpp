// note: a class definition without its closing semicolon: two different parse errors
// holes: V=1..99
#include <iostream>

struct Point {
    int x;
    int y;
}

int main() {
    Point p = {@@V@@, 2};
    std::cout << p.x + p.y << std::endl;
    return 0;
}
