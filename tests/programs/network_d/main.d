import std.socket : InternetAddress, TcpSocket;
import std.stdio : writeln;

void main() {
    foreach (host; ["1.1.1.1", "127.0.0.1"]) {
        ushort port = host == "1.1.1.1" ? 53 : 22;
        try {
            auto socket = new TcpSocket(new InternetAddress(host, port));
            socket.close();
            writeln("CONNECTED ", host);
        } catch (Exception error) {
            writeln("no network ", host, " ", typeid(error).name);
        }
    }
}
