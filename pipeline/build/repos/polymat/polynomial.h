#pragma once
#include <map>
#include <string>

// Integer polynomials: exponent -> coefficient, zero coefficients never stored.
class Polynomial {
public:
    Polynomial() = default;
    explicit Polynomial(std::map<int, long> terms);
    Polynomial operator+(const Polynomial &other) const;
    Polynomial operator*(const Polynomial &other) const;
    Polynomial derivative() const;
    long at(long x) const;
    int degree() const { return terms_.empty() ? -1 : terms_.rbegin()->first; }
    std::string str() const;

private:
    std::map<int, long> terms_;
};
