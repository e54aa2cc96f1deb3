#include <iostream>
#include "ledger.h"
#include "parser.h"

int main() {
    Ledger ledger;
    std::string line;
    int number = 0;
    while (std::getline(std::cin, line)) {
        auto words = split_words(line);
        ++number;
        if (words.empty() || words[0][0] == '#')
            continue;
        std::string result;
        const std::string &op = words[0];
        if (op == "open" && words.size() == 3)
            result = ledger.open(words[1], parse_cents(words[2]));
        else if (op == "deposit" && words.size() == 3)
            result = ledger.deposit(words[1], parse_cents(words[2]));
        else if (op == "withdraw" && words.size() == 3)
            result = ledger.withdraw(words[1], parse_cents(words[2]));
        else if (op == "transfer" && words.size() == 4)
            result = ledger.transfer(words[1], words[2], parse_cents(words[3]));
        else if (op == "freeze" && words.size() == 2)
            result = ledger.freeze(words[1]);
        else if (op == "report") {
            ledger.report();
            continue;
        } else
            result = "line " + std::to_string(number) + ": cannot read '" + line + "'";
        std::cout << result << std::endl;
    }
    return 0;
}
