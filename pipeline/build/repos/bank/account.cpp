#include "account.h"

Account::Account(std::string owner, long balance_cents) : owner_(std::move(owner)), balance_(balance_cents) {}

bool Account::withdraw(long cents) {
    if (frozen_ || cents > balance_)
        return false;
    balance_ -= cents;
    return true;
}

void Account::deposit(long cents) {
    balance_ += cents;
}
