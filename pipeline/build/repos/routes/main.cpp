#include <iostream>
#include <sstream>
#include "graph.h"

static void show(const char *how, const Route &route) {
    std::cout << how << ": ";
    if (route.minutes < 0) {
        std::cout << "no route" << std::endl;
        return;
    }
    for (std::size_t i = 0; i < route.stops.size(); ++i)
        std::cout << (i ? " -> " : "") << route.stops[i];
    std::cout << " (" << route.minutes << " min)" << std::endl;
}

int main() {
    Network network;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream words(line);
        std::string op, a, b;
        int minutes;
        words >> op;
        if (op == "link" && words >> a >> b >> minutes)
            network.connect(a, b, minutes);
        else if (op == "close" && words >> a)
            network.close(a);
        else if (op == "trip" && words >> a >> b) {
            std::cout << a << " to " << b << std::endl;
            show("  fastest", network.fastest(a, b));
            show("  fewest stops", network.fewest_stops(a, b));
        }
    }
    return 0;
}
