// note: writing an int through a float* breaks strict aliasing: -O2 keeps the stale int
// holes: V=2..99
#include <cstdio>

int store(int *i, float *f) {
    *i = @@V@@;
    *f = 0.0f;
    return *i;
}

int main() {
    int x = 0;
    std::printf("%d\n", store(&x, reinterpret_cast<float *>(&x)));
    return 0;
}
