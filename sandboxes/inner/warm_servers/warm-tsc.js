// A tsc kept running for the in-sandbox runner (sandboxes/inner/warm.py): each request is one compile,
// through the tsc command's own entry point (executeCommandLine, a fresh program each time), its output
// captured instead of written.
//
// Request: the arguments after `tsc`, NUL-separated, ending in a newline. Reply: a line
// "EXIT <status> <stdout bytes> <stderr bytes>", then those bytes. Argument 1 of this script is the tsc
// script to load (Debian's /usr/bin/tsc is a link to typescript/bin/tsc, which requires ../lib/tsc.js);
// it is loaded under its own file name, so it finds its library files as the tsc command does, without
// its last line (the command's own run of the process arguments).
"use strict";
const fs = require("fs");
const path = require("path");
const Module = require("module");
const readline = require("readline");

function loadTsc(binTsc) {
  const script = path.resolve(path.dirname(fs.realpathSync(binTsc)), "..", "lib", "tsc.js");
  const source = fs.readFileSync(script, "utf8");
  const run = "ts.executeCommandLine(ts.sys, ts.noop, ts.sys.args);";
  if (!source.trimEnd().endsWith(run)) throw new Error(`${script} does not end with ${run}`);
  const loaded = new Module(script, module);
  loaded.filename = script;
  loaded.paths = Module._nodeModulePaths(path.dirname(script));
  loaded._compile(source.trimEnd().slice(0, -run.length) + "\nmodule.exports = ts;\n", script);
  return loaded.exports;
}

function compile(ts, args) {
  const out = [];
  let status = null;
  const system = Object.create(ts.sys);
  system.write = (text) => out.push(text);
  system.writeOutputIsTerminal = () => false;
  system.exit = (code) => {
    if (status === null) status = code === undefined ? 0 : code;
  };
  try {
    ts.executeCommandLine(system, ts.noop, args);
  } catch (error) {
    return [1, "", String(error && error.stack)];
  }
  return [status === null ? 0 : status, out.join(""), ""];
}

function reply(status, stdout, stderr) {
  const out = Buffer.from(stdout, "utf8");
  const err = Buffer.from(stderr, "utf8");
  fs.writeSync(1, `EXIT ${status} ${out.length} ${err.length}\n`);
  fs.writeSync(1, Buffer.concat([out, err]));
}

const ts = loadTsc(process.argv[2]);
const requests = readline.createInterface({ input: process.stdin, terminal: false });
requests.on("line", (line) => {
  const [status, stdout, stderr] = compile(ts, line.split("\0").filter((arg) => arg !== ""));
  reply(status, stdout, stderr);
});
