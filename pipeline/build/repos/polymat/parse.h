#pragma once
#include <string>
#include "polynomial.h"

// "3x^2 - x + 4" -> Polynomial; throws std::invalid_argument naming the bad term.
Polynomial parse_polynomial(const std::string &text);
