"""A stand-in for leanprover-community/repl: the same JSON protocol, answers scripted by the proof text.

It reads commands separated by blank lines from stdin and answers each with a pretty-printed JSON object
(keys sorted, as Lean's Json prints them) and a blank line. A command without "env" is a header (a new
environment); one with "env" runs in that environment, or is refused with {"message": ...} as the real
REPL refuses an unknown environment. Empty `messages`/`sorries` are left out, as the REPL does.

Scripted by comments in the command text (lines are the command's own, 1-based):
    -- fake: error L C text      an error at line L, column C
    -- fake: warning L C text    a warning
    -- fake: sleep S             answer after S seconds
    -- fake: crash N             exit with code N without answering
    -- fake: alloc MIB           allocate MIB MiB (under RLIMIT_AS: "out of memory" on stderr, exit 1)
    -- fake: huge BYTES          an info message of BYTES bytes
    -- fake: garbage             stray non-JSON lines on stdout before the answer
    -- fake: refuse              answer {"message": ...} with no environment
    -- fake: axioms NAME A,B     `#print axioms NAME` answers A, B
Lean-like defaults: `sorry` in a theorem gives the warning "declaration uses 'sorry'", a `sorries` entry
and sorryAx; `native_decide` gives Lean.ofReduceBool; `axiom X` declares a user axiom; `import Bogus...`
in a header is refused; `open Bogus` in a header is an error with an environment.
Environment: FAKE_REPL_DELAY_MS (every answer), FAKE_REPL_HEADER_S (headers),
FAKE_REPL_BANNER (a line printed at start).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any

STANDARD = ["propext", "Classical.choice", "Quot.sound"]
DIRECTIVE = re.compile(r"--\s*fake:\s*(\w+)\s*(.*)")
DECL = re.compile(r"^(?:theorem|lemma)\s+(\S+)", re.M)
AXIOM = re.compile(r"^axiom\s+(\S+)", re.M)


def read_command() -> dict[str, Any] | None:
    lines: list[str] = []
    for line in sys.stdin:
        if line.strip():
            lines.append(line)
        elif lines:
            break
    return json.loads("".join(lines)) if lines else None


def answer(response: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(response, indent=1, sort_keys=True, ensure_ascii=False) + "\n\n")
    sys.stdout.flush()


def message(severity: str, line: int, column: int, data: str) -> dict[str, Any]:
    end = {"line": line, "column": column + 5}
    return {"severity": severity, "pos": {"line": line, "column": column}, "endPos": end, "data": data}


class FakeRepl:
    def __init__(self) -> None:
        self.envs: dict[int, dict[str, list[str]]] = {}  # env -> declaration -> axioms
        self.delay_s = float(os.environ.get("FAKE_REPL_DELAY_MS", "0")) / 1000

    def handle(self, command: dict[str, Any]) -> dict[str, Any] | None:
        text = str(command.get("cmd", ""))
        if "env" not in command:
            return self.header(text)
        if command["env"] not in self.envs:
            return {"message": "Unknown environment."}
        if text.startswith("#print axioms"):
            return self.print_axioms(self.envs[command["env"]], text)
        return self.body(self.envs[command["env"]], text)

    def new_env(self, declarations: dict[str, list[str]]) -> int:
        env = len(self.envs)
        self.envs[env] = declarations
        return env

    def header(self, text: str) -> dict[str, Any]:
        time.sleep(float(os.environ.get("FAKE_REPL_HEADER_S", "0")))
        if bogus := re.search(r"^import (Bogus\S*)", text, re.M):
            return {"message": f"unknown package '{bogus[1]}'"}
        response: dict[str, Any] = {"env": self.new_env({})}
        for number, line in enumerate(text.split("\n"), start=1):
            if line.startswith("open Bogus"):
                response["messages"] = [message("error", number, 5, "unknown namespace 'Bogus'")]
        return response

    def body(self, known: dict[str, list[str]], text: str) -> dict[str, Any] | None:
        messages: list[dict[str, Any]] = []
        sorries: list[dict[str, Any]] = []
        declarations = dict(known)
        for name in DECL.findall(text):
            declarations[name] = list(STANDARD)
        for name in AXIOM.findall(text):
            declarations[name] = [name]
        lines = text.split("\n")
        for number, line in enumerate(lines, start=1):
            if "sorry" in line and "--" not in line:
                column = line.index("sorry")
                sorries.append({"pos": {"line": number, "column": column}, "goal": "⊢ True", "proofState": 0})
                for name in DECL.findall(text):
                    declarations[name].append("sorryAx")
                decl_line = next(i for i, text_line in enumerate(lines, 1) if DECL.match(text_line))
                messages.append(message("warning", decl_line, 8, "declaration uses 'sorry'"))
            if "native_decide" in line and "--" not in line:
                for name in DECL.findall(text):
                    declarations[name].append("Lean.ofReduceBool")
            if not (found := DIRECTIVE.search(line)):
                continue
            verb, rest = found[1], found[2].strip()
            if verb in ("error", "warning"):
                at_line, at_column, data = rest.split(" ", 2)
                messages.append(message(verb, int(at_line), int(at_column), data.replace("\\n", "\n")))
            elif verb == "sleep":
                time.sleep(float(rest))
            elif verb == "crash":
                sys.stderr.write("INTERNAL PANIC: scripted crash\n")
                sys.exit(int(rest))
            elif verb == "alloc":
                try:
                    hog = bytearray(int(rest) << 20)
                    hog[::4096] = b"x" * len(hog[::4096])
                except MemoryError:
                    sys.stderr.write("INTERNAL PANIC: out of memory\n")
                    sys.exit(1)
            elif verb == "huge":
                messages.append(message("info", number, 0, "x" * int(rest)))
            elif verb == "garbage":
                sys.stdout.write("garbage: not json\n{not json either\n\n[1, 2]\n\n")
            elif verb == "refuse":
                return {"message": "scripted refusal"}
            elif verb == "axioms":
                name, axioms = rest.split(" ", 1)
                declarations[name] = [a for a in axioms.split(",") if a]
        response: dict[str, Any] = {"env": self.new_env(declarations)}
        if messages:
            response["messages"] = messages
        if sorries:
            response["sorries"] = sorries
        return response

    def print_axioms(self, declarations: dict[str, list[str]], text: str) -> dict[str, Any]:
        messages = []
        for number, line in enumerate(text.split("\n"), start=1):
            name = line.removeprefix("#print axioms").strip()
            if name not in declarations:
                messages.append(message("error", number, 14, f"unknown constant '{name}'"))
            elif axioms := declarations[name]:
                listed = ", ".join(sorted(set(axioms)))
                messages.append(message("info", number, 0, f"'{name}' depends on axioms: [{listed}]"))
            else:
                messages.append(message("info", number, 0, f"'{name}' does not depend on any axioms"))
        return {"env": self.new_env(declarations), "messages": messages}


def main() -> int:
    if banner := os.environ.get("FAKE_REPL_BANNER"):
        print(banner, flush=True)
    repl = FakeRepl()
    while (command := read_command()) is not None:
        response = repl.handle(command)
        if repl.delay_s:
            time.sleep(repl.delay_s)
        if response is not None:
            answer(response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
