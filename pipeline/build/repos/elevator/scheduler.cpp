#include "scheduler.h"
#include <iostream>

Scheduler::Scheduler(int cars) {
    for (int i = 0; i < cars; ++i)
        cars_.emplace_back(i, 0);
}

int Scheduler::call(int floor) {
    int best = 0;
    for (const Car &car : cars_)
        if (car.distance_to(floor) < cars_[best].distance_to(floor))
            best = car.id();
    cars_[best].add_stop(floor);
    return best;
}

void Scheduler::tick(int time) {
    for (Car &car : cars_) {
        int arrived;
        if (car.step(arrived))
            std::cout << "t=" << time << " car " << car.id() << " opens at floor " << arrived << std::endl;
    }
}

bool Scheduler::busy() const {
    for (const Car &car : cars_)
        if (!car.idle())
            return true;
    return false;
}
