#pragma once
#include <set>

class Car {
public:
    Car(int id, int floor) : id_(id), floor_(floor) {}
    int id() const { return id_; }
    int floor() const { return floor_; }
    int direction() const { return direction_; }
    bool idle() const { return stops_.empty(); }
    void add_stop(int floor) { stops_.insert(floor); }
    int distance_to(int floor) const;
    bool step(int &arrived);

private:
    int id_, floor_, direction_ = 0;
    std::set<int> stops_;
};
