#include "parse.h"
#include <cctype>
#include <stdexcept>

static std::string strip(const std::string &s) {
    std::string out;
    for (char c : s)
        if (!std::isspace((unsigned char)c))
            out += c;
    return out;
}

Polynomial parse_polynomial(const std::string &text) {
    std::string s = strip(text);
    std::map<int, long> terms;
    std::size_t i = 0;
    while (i < s.size()) {
        int sign = 1;
        if (s[i] == '+' || s[i] == '-')
            sign = s[i++] == '-' ? -1 : 1;
        std::size_t start = i;
        long coefficient = 0;
        bool digits = false;
        while (i < s.size() && std::isdigit((unsigned char)s[i])) {
            coefficient = coefficient * 10 + (s[i++] - '0');
            digits = true;
        }
        int exponent = 0;
        if (i < s.size() && s[i] == 'x') {
            ++i;
            exponent = 1;
            if (i < s.size() && s[i] == '^') {
                ++i;
                exponent = 0;
                if (i >= s.size() || !std::isdigit((unsigned char)s[i]))
                    throw std::invalid_argument("bad exponent after '" + s.substr(start, i - start) + "'");
                while (i < s.size() && std::isdigit((unsigned char)s[i]))
                    exponent = exponent * 10 + (s[i++] - '0');
            }
        } else if (!digits)
            throw std::invalid_argument("bad term at '" + s.substr(start) + "'");
        terms[exponent] += sign * (digits ? coefficient : 1);
    }
    return Polynomial(terms);
}
