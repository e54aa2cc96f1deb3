#include "car.h"
#include <cstdlib>

int Car::distance_to(int floor) const {
    if (idle())
        return std::abs(floor - floor_);
    int far = direction_ > 0 ? *stops_.rbegin() : *stops_.begin();
    bool on_the_way = direction_ > 0 ? floor >= floor_ : floor <= floor_;
    return on_the_way ? std::abs(floor - floor_) : std::abs(far - floor_) + std::abs(far - floor);
}

bool Car::step(int &arrived) {
    if (idle()) {
        direction_ = 0;
        return false;
    }
    if (direction_ == 0)
        direction_ = *stops_.begin() > floor_ ? 1 : -1;
    if (direction_ > 0 && *stops_.rbegin() < floor_)
        direction_ = -1;
    if (direction_ < 0 && *stops_.begin() > floor_)
        direction_ = 1;
    if (!stops_.count(floor_))
        floor_ += direction_;
    if (stops_.erase(floor_)) {
        arrived = floor_;
        return true;
    }
    return false;
}
