#pragma once
#include <map>
#include <string>
#include <vector>
#include "account.h"

class Ledger {
public:
    std::string open(const std::string &owner, long cents);
    std::string deposit(const std::string &owner, long cents);
    std::string withdraw(const std::string &owner, long cents);
    std::string transfer(const std::string &from, const std::string &to, long cents);
    std::string freeze(const std::string &owner);
    void report() const;

private:
    Account *find(const std::string &owner);
    std::map<std::string, Account> accounts_;
    std::vector<std::string> failures_;
};
