// note: which argument is evaluated first is unspecified: the print order shows it
// holes: A=x|y|z B=p|q|r
#include <cstdio>

int say(const char *word) {
    std::printf("%s\n", word);
    return 0;
}

int sum(int a, int b) {
    return a + b;
}

int main() {
    return sum(say("@@A@@"), say("@@B@@"));
}
