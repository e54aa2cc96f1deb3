#pragma once
#include <vector>
#include "car.h"

class Scheduler {
public:
    explicit Scheduler(int cars);
    int call(int floor);
    void send(int car, int floor) { cars_[car].add_stop(floor); }
    void tick(int time);
    bool busy() const;

private:
    std::vector<Car> cars_;
};
