"""The runner's JSON lines as the parent reads them: a line of megabytes (a compile's binary, base64)
arrives in a pipe's 64 KiB chunks, and the next line may share a chunk with its end."""

from __future__ import annotations

import json
import sys

from sandboxes.backends.bwrap import RunnerProcess

# A stand-in runner: says it is ready, then writes a 6 MB line and a short one in one write (so the
# short one's start lands in the long one's last chunk), then waits for its stdin to close.
WRITER = """
import json, sys
sys.stdout.write(json.dumps({"ready": True}) + "\\n"); sys.stdout.flush()
big = json.dumps({"ok": True, "b64": "A" * 6_000_000})
sys.stdout.write(big + "\\n" + json.dumps({"ok": True, "n": 2}) + "\\n"); sys.stdout.flush()
sys.stdin.read()
"""


def test_a_line_of_megabytes_and_the_line_after_it_arrive_whole() -> None:
    runner = RunnerProcess([sys.executable, "-c", WRITER], {}, None, None, None)
    try:
        first = runner.receive(timeout_s=60)
        second = runner.receive(timeout_s=60)
    finally:
        runner.close()
    assert first == {"ok": True, "b64": "A" * 6_000_000}
    assert second == {"ok": True, "n": 2}


class ChunkedSocket:
    """A container's attach socket as ``recv`` gives it: the bytes in the sizes given."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.chunks = []
        for size in sizes:
            self.chunks.append(data[:size])
            data = data[size:]
        self.chunks.append(data)

    def settimeout(self, seconds: float) -> None:
        pass

    def recv(self, most: int) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


def framed(stream: int, payload: bytes) -> bytes:
    from sandboxes.backends.docker import FRAME_HEADER

    return FRAME_HEADER.pack(stream, len(payload)) + payload


def test_a_containers_framed_lines_arrive_whole_however_the_socket_splits_them() -> None:
    """Docker frames each write (stream, size); a line spans frames, a frame spans chunks, and stderr's
    frames come between: the lines come out whole and in order, stderr kept apart."""
    from sandboxes.backends.docker import STDERR_STREAM, STDOUT_STREAM, ContainerRunner

    big = json.dumps({"ok": True, "b64": "B" * 3_000_000}).encode()
    data = b"".join(
        [framed(STDOUT_STREAM, big[n : n + 70_000]) for n in range(0, len(big), 70_000)]
        + [framed(STDERR_STREAM, b"a warning\n"), framed(STDOUT_STREAM, b'\n{"ok": true, "n": 2}\n')]
    )
    runner = object.__new__(ContainerRunner)  # its reading alone: no container behind it
    runner.stdout, runner.pending, runner.stderr = bytearray(), bytearray(), b""
    runner.socket = ChunkedSocket(data, [5, 65_536, 3, 100_000] * 40)
    assert runner.read_line(timeout_s=60) == {"ok": True, "b64": "B" * 3_000_000}
    assert runner.read_line(timeout_s=60) == {"ok": True, "n": 2}
    assert runner.stderr_tail() == "a warning"
