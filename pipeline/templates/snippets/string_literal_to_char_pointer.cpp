// note: a string literal bound to char*: a warning whose text depends on compiler and standard
// holes: W=hello|world|surge
#include <cstdio>

int main() {
    char *word = "@@W@@";
    std::printf("%s\n", word);
    return 0;
}
