// note: std::thread without -pthread: linked or not, depending on the toolchain's libc and C++ standard
// holes: V=1..99
#include <cstdio>
#include <thread>

int main() {
    int result = 0;
    std::thread worker([&] { result = @@V@@; });
    worker.join();
    std::printf("%d\n", result);
    return 0;
}
