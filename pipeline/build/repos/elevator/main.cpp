#include <iostream>
#include <map>
#include <vector>
#include "scheduler.h"

// Input: the number of cars, then lines "time call FLOOR" or "time send CAR FLOOR".
int main() {
    int cars;
    std::cin >> cars;
    Scheduler scheduler(cars);
    std::multimap<int, std::vector<int>> events;
    int time, a, b = -1;
    std::string kind;
    while (std::cin >> time >> kind >> a) {
        if (kind == "send")
            std::cin >> b;
        events.insert({time, kind == "send" ? std::vector<int>{a, b} : std::vector<int>{a}});
    }
    int t = 0;
    for (; t < 100 && (scheduler.busy() || events.lower_bound(t) != events.end()); ++t) {
        auto range = events.equal_range(t);
        for (auto it = range.first; it != range.second; ++it) {
            if (it->second.size() == 2)
                scheduler.send(it->second[0], it->second[1]);
            else
                std::cout << "t=" << t << " call at " << it->second[0] << " -> car " << scheduler.call(it->second[0]) << std::endl;
        }
        scheduler.tick(t);
    }
    std::cout << "all quiet at t=" << t << std::endl;
    return 0;
}
