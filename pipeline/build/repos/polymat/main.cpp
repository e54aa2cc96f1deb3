#include <iostream>
#include <stdexcept>
#include "parse.h"

// Each line: "p = POLY", "q = POLY", or a command: sum, product, derive p, eval p X.
int main() {
    Polynomial p, q;
    std::string line;
    while (std::getline(std::cin, line)) {
        try {
            if (line.rfind("p =", 0) == 0)
                p = parse_polynomial(line.substr(3));
            else if (line.rfind("q =", 0) == 0)
                q = parse_polynomial(line.substr(3));
            else if (line == "sum")
                std::cout << "p + q = " << (p + q).str() << std::endl;
            else if (line == "product")
                std::cout << "p * q = " << (p * q).str() << " (degree " << (p * q).degree() << ")" << std::endl;
            else if (line == "derive p")
                std::cout << "p' = " << p.derivative().str() << std::endl;
            else if (line.rfind("eval p ", 0) == 0)
                std::cout << "p(" << line.substr(7) << ") = " << p.at(std::stol(line.substr(7))) << std::endl;
        } catch (const std::invalid_argument &error) {
            std::cout << "error: " << error.what() << std::endl;
        }
    }
    return 0;
}
