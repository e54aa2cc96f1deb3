import std.array : replicate;
import std.stdio : writeln;

void main() {
    auto line = "spam ".replicate(100);
    while (true) {
        writeln(line);
    }
}
