// note: in `a(x) + b(x)` on strings the call order is unspecified: g++ and clang++ differ
// holes: V=1..9
#include <iostream>
#include <string>

std::string log;

std::string part(const char *name) {
    log += name;
    return name;
}

int main() {
    std::string joined = part("one") + part("two") + std::to_string(@@V@@);
    std::cout << joined << " " << log << std::endl;
    return 0;
}
