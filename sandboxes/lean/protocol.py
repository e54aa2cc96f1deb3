"""One REPL process and the JSON protocol of leanprover-community/repl (README, REPL/JSON.lean).

Commands go to stdin as one JSON object followed by a blank line; each response is a JSON object
(pretty-printed over several lines, never containing an empty line) followed by a blank line:

    {"cmd": "import Mathlib"}                  -> {"env": 0}
    {"cmd": "theorem t : 1 = 1 := rfl", "env": 0} -> {"env": 1, "messages": [...], "sorries": [...]}
    a bad request                              -> {"message": "Unknown environment."}

`messages` and `sorries` are left out when empty. The REPL has no per-command timeout (repl issue #94),
so the client keeps the clock: a response that does not come in time kills the process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.errors import SurgeError

STDERR_TAIL_BYTES = 4096
_MEMORY_WORDS = ("out of memory", "std::bad_alloc", "cannot allocate memory", "memoryerror")


class ReplError(SurgeError):
    """The REPL process failed us (not the proof): it died, went silent, or spoke something else."""


class ReplTimeout(ReplError):
    def __init__(self, limit_s: float, what: str) -> None:
        super().__init__(f"no answer to the {what} within {limit_s:g} s", hint="raise SURGE_LEAN_TIMEOUT_S")
        self.limit_s = limit_s
        self.what = what


class ReplCrashed(ReplError):
    def __init__(self, exit_code: int | None, stderr_tail: str) -> None:
        how = f"exit code {exit_code}" if exit_code is None or exit_code >= 0 else _signal_name(-exit_code)
        super().__init__(f"the REPL process ended ({how}): {stderr_tail.strip()[-300:] or 'no stderr'}")
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        lowered = stderr_tail.lower()
        self.out_of_memory = any(word in lowered for word in _MEMORY_WORDS)


class ReplOutputLimit(ReplError):
    def __init__(self, limit_bytes: int) -> None:
        super().__init__(
            f"one response exceeded {limit_bytes} bytes", hint="raise SURGE_LEAN_MAX_OUTPUT_BYTES"
        )
        self.limit_bytes = limit_bytes


class ReplProtocolError(ReplError):
    pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def limited_argv(argv: Sequence[str], memory_mib: int) -> list[str]:
    """Prefix util-linux `prlimit` so RLIMIT_AS holds from exec on, for the REPL and what it spawns
    (`lake env repl` forks the REPL; setting the limit after Popen would race that fork)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise ReplError("`prlimit` (util-linux) is missing", hint="apt-get install util-linux")
    limit_bytes = memory_mib * 1024 * 1024
    return [prlimit, f"--as={limit_bytes}", "--core=0", "--", *argv]


class ReplProcess:
    """A started REPL: send one command, read one response, under a deadline and an output cap."""

    def __init__(self, argv: Sequence[str], cwd: Path, memory_mib: int, max_output_bytes: int) -> None:
        self.argv = list(argv)
        self.max_output_bytes = max_output_bytes
        self.process = subprocess.Popen(
            limited_argv(argv, memory_mib),
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill reaches lake's child REPL too
        )
        assert self.process.stdout and self.process.stderr
        os.set_blocking(self.process.stdout.fileno(), False)
        os.set_blocking(self.process.stderr.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ, "out")
        self._selector.register(self.process.stderr, selectors.EVENT_READ, "err")
        self._pending = b""  # bytes read past the end of the previous response
        self.stderr_tail = b""
        self.garbage_lines = 0  # non-JSON lines skipped (startup banners, stray prints)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, command: dict[str, Any], timeout_s: float, what: str) -> dict[str, Any]:
        """Send one command and return its response object; raise a ReplError on any failure of the
        process (the caller then kills it: a REPL in an unknown state is never reused)."""
        payload = json.dumps(command, ensure_ascii=False).encode("utf-8") + b"\n\n"
        assert self.process.stdin
        try:
            self.process.stdin.write(payload)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._crashed() from None
        return self._read_response(time.monotonic() + timeout_s, timeout_s, what)

    def _read_response(self, deadline: float, timeout_s: float, what: str) -> dict[str, Any]:
        buffer, self._pending = bytearray(self._pending), b""
        scanned = 0  # blank-line search resumes here: a huge response is scanned once, not per chunk
        while True:
            end = buffer.find(b"\n\n", max(0, scanned - 1))
            if end > self.max_output_bytes:
                raise ReplOutputLimit(self.max_output_bytes)
            if end >= 0:
                response = self._parse_block(bytes(buffer[:end]))
                del buffer[: end + 2]
                scanned = 0
                if response is not None:
                    self._pending = bytes(buffer)
                    return response
                continue
            scanned = len(buffer)
            if len(buffer) > self.max_output_bytes:
                raise ReplOutputLimit(self.max_output_bytes)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ReplTimeout(timeout_s, what)
            chunk = self._read_some(remaining)
            if chunk is None:
                raise self._crashed()
            buffer += chunk

    def _parse_block(self, block: bytes) -> dict[str, Any] | None:
        """The JSON object a blank line ends; lines before it that are not JSON (a banner, a stray
        print) are skipped and counted, never taken for an answer."""
        lines = block.split(b"\n")
        for index, line in enumerate(lines):
            if not line.startswith(b"{"):
                continue
            try:
                parsed = json.loads(b"\n".join(lines[index:]))
            except ValueError:
                continue
            if isinstance(parsed, dict):
                self.garbage_lines += sum(1 for skipped in lines[:index] if skipped.strip())
                return parsed
        self.garbage_lines += sum(1 for skipped in lines if skipped.strip())
        return None

    def _read_some(self, timeout_s: float) -> bytes | None:
        """Bytes from stdout (stderr is drained into a tail on the way); None when stdout closed."""
        while True:
            events = self._selector.select(timeout_s)
            if not events:
                return b""
            for key, _ in events:
                data = os.read(key.fd, 1 << 16)
                if key.data == "err":
                    if not data:
                        self._selector.unregister(key.fileobj)
                    self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL_BYTES:]
                    continue
                return data or None

    def _crashed(self) -> ReplCrashed:
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
        self._drain_stderr()
        return ReplCrashed(self.process.returncode, self.stderr_tail.decode("utf-8", "replace"))

    def _drain_stderr(self) -> None:
        assert self.process.stderr
        try:
            while data := os.read(self.process.stderr.fileno(), 1 << 16):
                self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL_BYTES:]
        except (BlockingIOError, OSError, ValueError):
            pass

    def kill(self) -> None:
        """End the whole process group (lake and the REPL it started). Idempotent."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._selector.close()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
