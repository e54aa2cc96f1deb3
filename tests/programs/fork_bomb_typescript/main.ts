// Node has no fork: children are started and never waited for, a batch per turn of the event loop (so
// the loop can deliver the refusals, which are swallowed as the Python case catches its OSError), each a
// `sleep` that would outlive the phase if the sandbox let it.
declare var require: any;
const { spawn } = require("child_process");

function bomb(): void {
  for (let i = 0; i < 16; i++) {
    try {
      spawn("sleep", ["600"]).on("error", () => {});
    } catch (error) {}
  }
  setTimeout(bomb, 0);
}

bomb();
