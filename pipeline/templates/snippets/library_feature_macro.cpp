// note: the library's __cpp_lib_* macros depend on the standard: <utility> defines more in C++17
// holes: V=1..99
#include <cstdio>
#include <utility>

int main() {
#if defined(__cpp_lib_as_const)
    std::printf("as_const %d\n", @@V@@);
#elif defined(__cpp_lib_exchange_function)
    std::printf("exchange %d\n", @@V@@);
#else
    std::printf("none %d\n", @@V@@);
#endif
    return 0;
}
