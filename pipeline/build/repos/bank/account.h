#pragma once
#include <string>

class Account {
public:
    Account(std::string owner, long balance_cents);
    const std::string &owner() const { return owner_; }
    long balance() const { return balance_; }
    bool withdraw(long cents);
    void deposit(long cents);
    bool frozen() const { return frozen_; }
    void freeze() { frozen_ = true; }

private:
    std::string owner_;
    long balance_;
    bool frozen_ = false;
};
