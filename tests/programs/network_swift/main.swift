import Glibc

for (host, port) in [("1.1.1.1", 53), ("127.0.0.1", 22)] {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    _ = inet_pton(AF_INET, host, &address.sin_addr)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if connected == 0 {
        print("CONNECTED", host)
    } else {
        print("no network", host, String(cString: strerror(errno)))
    }
    close(socketFD)
}
