#include "ledger.h"
#include <cstdio>

static std::string money(long cents) {
    char text[32];
    std::snprintf(text, sizeof text, "%ld.%02ld", cents / 100, cents % 100);
    return text;
}

Account *Ledger::find(const std::string &owner) {
    auto it = accounts_.find(owner);
    return it == accounts_.end() ? nullptr : &it->second;
}

std::string Ledger::open(const std::string &owner, long cents) {
    if (find(owner))
        return "error: " + owner + " already has an account";
    accounts_.emplace(owner, Account(owner, cents));
    return "opened " + owner + " with " + money(cents);
}

std::string Ledger::deposit(const std::string &owner, long cents) {
    Account *a = find(owner);
    if (!a)
        return "error: no account " + owner;
    a->deposit(cents);
    return owner + " now has " + money(a->balance());
}

std::string Ledger::withdraw(const std::string &owner, long cents) {
    Account *a = find(owner);
    if (!a)
        return "error: no account " + owner;
    if (!a->withdraw(cents)) {
        failures_.push_back("withdraw " + owner);
        return "declined: " + owner + (a->frozen() ? " is frozen" : " has only " + money(a->balance()));
    }
    return owner + " now has " + money(a->balance());
}

std::string Ledger::transfer(const std::string &from, const std::string &to, long cents) {
    Account *a = find(from), *b = find(to);
    if (!a || !b)
        return "error: transfer needs two accounts";
    if (!a->withdraw(cents)) {
        failures_.push_back("transfer " + from + "->" + to);
        return "declined: transfer of " + money(cents) + " from " + from;
    }
    b->deposit(cents);
    return "moved " + money(cents) + " from " + from + " to " + to;
}

std::string Ledger::freeze(const std::string &owner) {
    Account *a = find(owner);
    if (!a)
        return "error: no account " + owner;
    a->freeze();
    return owner + " is frozen";
}

void Ledger::report() const {
    long total = 0;
    for (const auto &entry : accounts_) {
        std::printf("%-8s %10s%s\n", entry.first.c_str(), money(entry.second.balance()).c_str(),
                    entry.second.frozen() ? " (frozen)" : "");
        total += entry.second.balance();
    }
    std::printf("total %s, %zu failed operations\n", money(total).c_str(), failures_.size());
}
