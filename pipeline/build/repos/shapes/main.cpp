#include <iostream>
#include <vector>
#include "shape.h"

int main() {
    int n;
    std::cin >> n;
    double total = 0;
    for (int i = 0; i < n; ++i) {
        std::string kind;
        double a, b;
        std::cin >> kind >> a >> b;
        Shape *s = make_shape(kind, a, b);
        if (!s) {
            std::cout << "unknown shape " << kind << std::endl;
            continue;
        }
        std::cout << s->name() << " " << s->area() << std::endl;
        total += s->area();
        delete s;
    }
    std::cout << "total " << total << std::endl;
    return 0;
}
