#pragma once
#include <string>
#include <vector>

std::vector<std::string> split_words(const std::string &line);
long parse_cents(const std::string &text);
