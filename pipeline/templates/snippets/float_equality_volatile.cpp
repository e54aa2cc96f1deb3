// note: a float computed in a function compared with its constant-folded value
// holes: V=3..9
#include <cstdio>

float third(float x) {
    return x / 3.0f;
}

int main() {
    float a = third(@@V@@.0f) * 3.0f;
    std::printf("%d %.9g\n", a == @@V@@.0f, a);
    return 0;
}
