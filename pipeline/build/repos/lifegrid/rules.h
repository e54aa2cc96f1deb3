#pragma once
#include <string>
#include "grid.h"

// A rule in B/S notation, e.g. B3/S23 (Conway's life) or B36/S23 (HighLife).
struct Rule {
    std::string born, survives;
    static Rule parse(const std::string &text);
    Grid step(const Grid &grid, bool wrap) const;
};
