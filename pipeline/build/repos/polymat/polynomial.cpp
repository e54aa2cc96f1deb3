#include "polynomial.h"
#include <cstdlib>

Polynomial::Polynomial(std::map<int, long> terms) {
    for (const auto &[e, c] : terms)
        if (c != 0)
            terms_[e] = c;
}

Polynomial Polynomial::operator+(const Polynomial &other) const {
    std::map<int, long> sum = terms_;
    for (const auto &[e, c] : other.terms_)
        sum[e] += c;
    return Polynomial(sum);
}

Polynomial Polynomial::operator*(const Polynomial &other) const {
    std::map<int, long> product;
    for (const auto &[e1, c1] : terms_)
        for (const auto &[e2, c2] : other.terms_)
            product[e1 + e2] += c1 * c2;
    return Polynomial(product);
}

Polynomial Polynomial::derivative() const {
    std::map<int, long> d;
    for (const auto &[e, c] : terms_)
        if (e > 0)
            d[e - 1] = c * e;
    return Polynomial(d);
}

long Polynomial::at(long x) const {
    long value = 0;
    for (int e = degree(); e >= 0; --e) {
        auto it = terms_.find(e);
        value = value * x + (it == terms_.end() ? 0 : it->second);
    }
    return value;
}

std::string Polynomial::str() const {
    if (terms_.empty())
        return "0";
    std::string out;
    for (auto it = terms_.rbegin(); it != terms_.rend(); ++it) {
        long c = it->second;
        int e = it->first;
        out += out.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        long a = std::labs(c);
        if (a != 1 || e == 0)
            out += std::to_string(a);
        if (e > 0)
            out += e == 1 ? "x" : "x^" + std::to_string(e);
    }
    return out;
}
