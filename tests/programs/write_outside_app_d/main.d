import std.file : write;
import std.stdio : writeln;

void main() {
    foreach (path; ["/usr/surge-escape", "/etc/surge-escape", "/surge-escape",
                    "/opt/surge-runner/escape", "/root/surge-escape"]) {
        try {
            write(path, "x");
            writeln("WROTE ", path);
        } catch (Exception error) {
            writeln("refused ", path, " ", typeid(error).name);
        }
    }
}
