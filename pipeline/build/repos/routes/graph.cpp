#include "graph.h"
#include <algorithm>
#include <queue>
#include <set>

void Network::connect(const std::string &a, const std::string &b, int minutes) {
    edges_[a][b] = minutes;
    edges_[b][a] = minutes;
}

void Network::close(const std::string &stop) {
    edges_.erase(stop);
    for (auto &entry : edges_)
        entry.second.erase(stop);
}

static Route walk_back(const std::map<std::string, std::string> &previous, const std::string &to) {
    Route route;
    for (std::string at = to;; at = previous.at(at)) {
        route.stops.push_back(at);
        if (!previous.count(at))
            break;
    }
    std::reverse(route.stops.begin(), route.stops.end());
    return route;
}

Route Network::fastest(const std::string &from, const std::string &to) const {
    std::map<std::string, int> best;
    std::map<std::string, std::string> previous;
    std::priority_queue<std::pair<int, std::string>, std::vector<std::pair<int, std::string>>, std::greater<>> queue;
    best[from] = 0;
    queue.push({0, from});
    while (!queue.empty()) {
        auto [cost, at] = queue.top();
        queue.pop();
        if (cost > best[at] || !edges_.count(at))
            continue;
        for (const auto &[next, minutes] : edges_.at(at)) {
            if (!best.count(next) || cost + minutes < best[next]) {
                best[next] = cost + minutes;
                previous[next] = at;
                queue.push({best[next], next});
            }
        }
    }
    if (!best.count(to) || !edges_.count(from))
        return {};
    Route route = walk_back(previous, to);
    route.minutes = best[to];
    return route;
}

Route Network::fewest_stops(const std::string &from, const std::string &to) const {
    std::map<std::string, std::string> previous;
    std::set<std::string> seen{from};
    std::queue<std::string> queue;
    queue.push(from);
    while (!queue.empty() && edges_.count(from)) {
        std::string at = queue.front();
        queue.pop();
        if (at == to) {
            Route route = walk_back(previous, to);
            route.minutes = 0;
            for (std::size_t i = 1; i < route.stops.size(); ++i)
                route.minutes += edges_.at(route.stops[i - 1]).at(route.stops[i]);
            return route;
        }
        for (const auto &entry : edges_.at(at))
            if (seen.insert(entry.first).second) {
                previous[entry.first] = at;
                queue.push(entry.first);
            }
    }
    return {};
}
