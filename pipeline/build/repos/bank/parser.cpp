#include "parser.h"
#include <sstream>

std::vector<std::string> split_words(const std::string &line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    std::string word;
    while (in >> word)
        words.push_back(word);
    return words;
}

long parse_cents(const std::string &text) {
    std::size_t dot = text.find('.');
    if (dot == std::string::npos)
        return std::stol(text) * 100;
    std::string cents = text.substr(dot + 1) + "00";
    return std::stol(text.substr(0, dot)) * 100 + std::stol(cents.substr(0, 2));
}
