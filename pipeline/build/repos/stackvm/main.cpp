#include <fstream>
#include <iostream>
#include "lexer.h"
#include "machine.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        std::cout << "usage: vm PROGRAM" << std::endl;
        return 1;
    }
    std::ifstream file(argv[1]);
    Machine machine(read_program(file));
    machine.run(argc > 2 ? std::stoi(argv[2]) : 1000);
    return 0;
}
