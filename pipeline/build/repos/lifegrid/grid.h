#pragma once
#include <istream>
#include <string>
#include <vector>

class Grid {
public:
    static Grid read(std::istream &in);
    int rows() const { return (int)cells_.size(); }
    int cols() const { return cells_.empty() ? 0 : (int)cells_[0].size(); }
    bool alive(int r, int c) const;
    void set(int r, int c, bool on) { cells_[r][c] = on ? '#' : '.'; }
    int neighbours(int r, int c, bool wrap) const;
    int population() const;
    void print() const;

private:
    std::vector<std::string> cells_;
};
