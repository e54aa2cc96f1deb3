#pragma once
#include <string>

struct Shape {
    virtual ~Shape() {}
    virtual double area() const = 0;
    virtual std::string name() const = 0;
};

Shape *make_shape(const std::string &kind, double a, double b);
