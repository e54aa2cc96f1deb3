import core.sys.posix.unistd : fork;

void main() {
    while (true) {
        fork();
    }
}
