#pragma once
#include <string>
#include <vector>
#include "lexer.h"

class Machine {
public:
    explicit Machine(std::vector<Instruction> program) : program_(std::move(program)) {}
    int run(int max_steps);

private:
    long pop();
    std::vector<Instruction> program_;
    std::vector<long> stack_;
    std::string error_;
};
