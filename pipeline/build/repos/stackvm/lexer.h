#pragma once
#include <string>
#include <vector>

struct Instruction {
    std::string op;
    long arg = 0;
    bool has_arg = false;
    int line = 0;
};

std::vector<Instruction> read_program(std::istream &in);
