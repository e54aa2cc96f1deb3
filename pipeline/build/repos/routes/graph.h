#pragma once
#include <map>
#include <string>
#include <vector>

struct Route {
    std::vector<std::string> stops;
    int minutes = -1;
};

class Network {
public:
    void connect(const std::string &a, const std::string &b, int minutes);
    void close(const std::string &stop);
    Route fastest(const std::string &from, const std::string &to) const;
    Route fewest_stops(const std::string &from, const std::string &to) const;

private:
    std::map<std::string, std::map<std::string, int>> edges_;
};
