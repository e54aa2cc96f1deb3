#include "machine.h"
#include <iostream>
#include <stdexcept>

long Machine::pop() {
    if (stack_.empty())
        throw std::runtime_error("stack underflow");
    long v = stack_.back();
    stack_.pop_back();
    return v;
}

int Machine::run(int max_steps) {
    std::size_t pc = 0;
    int steps = 0;
    try {
        while (pc < program_.size()) {
            if (++steps > max_steps) {
                std::cout << "stopped after " << max_steps << " steps" << std::endl;
                return 2;
            }
            const Instruction &ins = program_[pc++];
            if (ins.op == "push") stack_.push_back(ins.arg);
            else if (ins.op == "add") stack_.push_back(pop() + pop());
            else if (ins.op == "mul") stack_.push_back(pop() * pop());
            else if (ins.op == "sub") { long b = pop(), a = pop(); stack_.push_back(a - b); }
            else if (ins.op == "div") {
                long b = pop(), a = pop();
                if (b == 0) throw std::runtime_error("division by zero");
                stack_.push_back(a / b);
            }
            else if (ins.op == "dup") { long a = pop(); stack_.push_back(a); stack_.push_back(a); }
            else if (ins.op == "over") { long b = pop(), a = pop(); stack_.push_back(a); stack_.push_back(b); stack_.push_back(a); }
            else if (ins.op == "swap") { long b = pop(), a = pop(); stack_.push_back(b); stack_.push_back(a); }
            else if (ins.op == "print") std::cout << stack_.back() << std::endl;
            else if (ins.op == "jz") { if (pop() == 0) pc = ins.arg; }
            else if (ins.op == "jmp") pc = ins.arg;
            else if (ins.op == "halt") break;
            else throw std::runtime_error("unknown instruction '" + ins.op + "' on line " + std::to_string(ins.line));
        }
    } catch (const std::runtime_error &e) {
        std::cout << "error at instruction " << pc - 1 << ": " << e.what() << std::endl;
        return 1;
    }
    std::cout << "halted with " << stack_.size() << " values on the stack" << std::endl;
    return 0;
}
