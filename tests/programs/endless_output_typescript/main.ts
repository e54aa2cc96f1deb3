// Straight to file descriptor 1, blocking as the other languages' floods do. console.log would, once the
// pipe is full, queue every further line in node's own memory (this loop never lets the event loop run),
// so the CPU limit would end it before the output cap saw a byte more.
declare var require: any;
const fs = require("fs");

const line: string = "spam ".repeat(100) + "\n";
while (true) {
  fs.writeSync(1, line);
}
