#include "rules.h"

Rule Rule::parse(const std::string &text) {
    Rule rule;
    std::size_t slash = text.find('/');
    rule.born = text.substr(1, slash - 1);
    rule.survives = text.substr(slash + 2);
    return rule;
}

Grid Rule::step(const Grid &grid, bool wrap) const {
    Grid next = grid;
    for (int r = 0; r < grid.rows(); ++r)
        for (int c = 0; c < grid.cols(); ++c) {
            char n = (char)('0' + grid.neighbours(r, c, wrap));
            const std::string &keep = grid.alive(r, c) ? survives : born;
            next.set(r, c, keep.find(n) != std::string::npos);
        }
    return next;
}
