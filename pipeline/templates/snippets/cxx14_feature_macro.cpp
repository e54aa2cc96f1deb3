// note: __cpp_generic_lambdas is defined from C++14, __cpp_lambdas from C++11
// holes: V=1..99
#include <cstdio>

int main() {
#if defined(__cpp_generic_lambdas)
    std::printf("generic %d\n", @@V@@);
#elif defined(__cpp_lambdas)
    std::printf("lambdas %d\n", @@V@@);
#else
    std::printf("none %d\n", @@V@@);
#endif
    return 0;
}
