#include <iostream>
#include "grid.h"
#include "rules.h"

int main() {
    std::string rule_text, edges;
    int generations;
    std::cin >> rule_text >> generations >> edges;
    std::cin.ignore(1000, '\n');
    Rule rule = Rule::parse(rule_text);
    Grid grid = Grid::read(std::cin);
    bool wrap = edges == "wrap";
    for (int g = 1; g <= generations; ++g) {
        grid = rule.step(grid, wrap);
        if (grid.population() == 0) {
            std::cout << "extinct after " << g << " generations" << std::endl;
            return 0;
        }
    }
    std::cout << "after " << generations << " generations, population " << grid.population() << std::endl;
    grid.print();
    return 0;
}
