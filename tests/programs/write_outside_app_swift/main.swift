import Glibc

let paths = [
    "/usr/surge-escape",
    "/etc/surge-escape",
    "/surge-escape",
    "/opt/surge-runner/escape",
    "/root/surge-escape",
]
for path in paths {
    if let file = fopen(path, "w") {
        fputs("x", file)
        fclose(file)
        print("WROTE", path)
    } else {
        print("refused", path, String(cString: strerror(errno)))
    }
}
