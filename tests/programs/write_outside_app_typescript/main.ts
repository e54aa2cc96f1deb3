declare var require: any;
const fs = require("fs");

const paths: string[] = [
  "/usr/surge-escape",
  "/etc/surge-escape",
  "/surge-escape",
  "/opt/surge-runner/escape",
  "/root/surge-escape",
];
for (const path of paths) {
  try {
    fs.writeFileSync(path, "x");
    console.log("WROTE", path);
  } catch (error: any) {
    console.log("refused", path, error.code);
  }
}
