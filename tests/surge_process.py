"""`surge` as its own process, as a user starts it: the executable's entry (``python -m pipeline.cli``) with
this checkout first on the path, and the user's view of errors (one line, SURGE_DEBUG unset)."""

from __future__ import annotations

import fcntl
import functools
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SURGE = [sys.executable, "-m", "pipeline.cli"]
COMMAND_TIMEOUT_S = 300


def surge_env(base: Mapping[str, str] | None = None, **changes: str) -> dict[str, str]:
    """``base`` (default: this process's environment) with ``changes``, this checkout on PYTHONPATH and no
    SURGE_DEBUG."""
    env = {**(os.environ if base is None else base), **changes, "PYTHONPATH": str(REPO_ROOT)}
    env.pop("SURGE_DEBUG", None)
    return env


def run_surge(
    argv: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout_s: float = COMMAND_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run `surge ARGV` to its end; stdout and stderr as text (undecodable bytes replaced)."""
    return subprocess.run(
        [*SURGE, *argv],
        cwd=cwd,
        env=surge_env(env),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout_s,
    )


# A plain progress line as a log or a pipe gets it (flows/progress.py): what a command prints on stderr
# besides its own one-line errors.
PROGRESS_LINE = re.compile(r"[\w ]+ \[[#.]{24}\] .*, \d+ s elapsed, ETA (\d+ s|unknown)")


def without_progress(stderr: str) -> list[str]:
    """stderr's lines other than the progress bar's."""
    return [line for line in stderr.splitlines() if not PROGRESS_LINE.fullmatch(line)]


def run_on_terminals(
    argv: list[str], cwd: Path, stdout_tty: bool, stderr_tty: bool, timeout_s: float = COMMAND_TIMEOUT_S
) -> tuple[int, bytes, bytes]:
    """Run `surge ARGV` with stdout and stderr each on a pseudo-terminal of its own (120 columns) or a
    pipe; (exit code, stdout's bytes, stderr's bytes), a terminal's line ends read back as ``\\n``."""
    ends: list[tuple[int, int | None]] = []  # (what the process writes to, the terminal's side we read)
    for tty in (stdout_tty, stderr_tty):
        if tty:
            leader, follower = pty.openpty()
            fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
            ends.append((follower, leader))
        else:
            ends.append((subprocess.PIPE, None))
    seen = [bytearray(), bytearray()]
    with subprocess.Popen(
        [*SURGE, *argv], cwd=cwd, env=surge_env(), stdout=ends[0][0], stderr=ends[1][0]
    ) as process:
        readers = []
        for (writer, leader), into, pipe in zip(ends, seen, (process.stdout, process.stderr), strict=True):
            if leader is not None:
                os.close(writer)
                source: Callable[[], bytes] = functools.partial(read_or_end, leader)
            else:
                assert pipe is not None
                source = functools.partial(pipe.read1, 65536)  # type: ignore[attr-defined]
            readers.append(threading.Thread(target=drain, args=(source, into), daemon=True))
            readers[-1].start()
        code = process.wait(timeout=timeout_s)
        for reader in readers:
            reader.join(timeout=30)
    for _, leader in ends:
        if leader is not None:
            os.close(leader)
    return code, bytes(seen[0]).replace(b"\r\n", b"\n"), bytes(seen[1]).replace(b"\r\n", b"\n")


def drain(source: Callable[[], bytes], into: bytearray) -> None:
    while chunk := source():
        into.extend(chunk)


def read_or_end(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the command's side of the terminal closed
        return b""
