declare var require: any;
const net = require("net");

const targets: [string, number][] = [["1.1.1.1", 53], ["127.0.0.1", 22]];
for (const [host, port] of targets) {
  const socket = net.connect({ host, port, timeout: 1000 });
  socket.on("connect", () => {
    console.log("CONNECTED", host);
    socket.destroy();
  });
  socket.on("error", (error: any) => console.log("no network", host, error.code));
  socket.on("timeout", () => {
    console.log("no network", host, "timeout");
    socket.destroy();
  });
}
