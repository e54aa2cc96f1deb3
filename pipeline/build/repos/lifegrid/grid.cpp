#include "grid.h"
#include <iostream>

Grid Grid::read(std::istream &in) {
    Grid grid;
    std::string line;
    while (std::getline(in, line) && !line.empty())
        grid.cells_.push_back(line);
    return grid;
}

bool Grid::alive(int r, int c) const {
    return cells_[r][c] == '#';
}

int Grid::neighbours(int r, int c, bool wrap) const {
    int count = 0;
    for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
            if (!dr && !dc)
                continue;
            int rr = r + dr, cc = c + dc;
            if (wrap) {
                rr = (rr + rows()) % rows();
                cc = (cc + cols()) % cols();
            } else if (rr < 0 || cc < 0 || rr >= rows() || cc >= cols())
                continue;
            count += alive(rr, cc);
        }
    return count;
}

int Grid::population() const {
    int n = 0;
    for (int r = 0; r < rows(); ++r)
        for (int c = 0; c < cols(); ++c)
            n += alive(r, c);
    return n;
}

void Grid::print() const {
    for (const auto &row : cells_)
        std::cout << row << std::endl;
}
