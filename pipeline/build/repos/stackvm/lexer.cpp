#include "lexer.h"
#include <istream>
#include <sstream>

std::vector<Instruction> read_program(std::istream &in) {
    std::vector<Instruction> program;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::size_t hash = line.find(';');
        if (hash != std::string::npos)
            line = line.substr(0, hash);
        std::istringstream words(line);
        Instruction ins;
        if (!(words >> ins.op))
            continue;
        ins.line = number;
        if (words >> ins.arg)
            ins.has_arg = true;
        program.push_back(ins);
    }
    return program;
}
