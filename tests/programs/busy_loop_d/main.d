__gshared ulong count;

void main() {
    while (true) {
        count++;
    }
}
