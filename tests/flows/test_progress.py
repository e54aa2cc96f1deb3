"""The progress line counts runs as their rows reach the store, each run once."""

from __future__ import annotations

import io
import os
import pty
import re
import threading
import time

import pytest

from flows import progress as progress_module
from flows.progress import LOG_EVERY_S, Progress


def test_runs_count_as_their_rows_are_stored_and_once_when_their_batch_ends() -> None:
    progress = Progress("audit", total_batches=2, total_runs=10, stream=io.StringIO())
    progress.rows_stored("a", 3)
    assert (progress.batches, progress.runs) == (0, 3)
    progress.advance(5, batch_id="a")  # its 3 stored runs are not counted again
    progress.advance(5, batch_id="b")
    assert (progress.batches, progress.runs) == (2, 10)


def test_a_log_shows_stored_rows_while_no_batch_has_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    log = io.StringIO()  # not a terminal: a line at most every LOG_EVERY_S
    progress = Progress("audit", total_batches=1, total_runs=64, stream=log)
    clock[0] = LOG_EVERY_S + 1
    progress.rows_stored("long", 2)
    assert "batches 0/1, runs 2/64" in log.getvalue()


def test_the_clock_runs_from_the_commands_start_not_the_flows(monkeypatch: pytest.MonkeyPatch) -> None:
    # The head start ran half the batches in the 40 s before the flow's body made the line.
    monkeypatch.setattr(progress_module.psutil.Process, "create_time", lambda self: time.time() - 40.0)
    progress = Progress("run", total_batches=2, total_runs=2, stream=io.StringIO())
    progress.advance(1, batch_id="ran-in-the-head-start")
    elapsed_s, eta_s = (int(part.split(" s")[0].split()[-1]) for part in progress.line().split(", ")[-2:])
    assert 39 <= elapsed_s <= 45 and 39 <= eta_s <= 45, progress.line()


def test_a_log_gets_plain_lines_without_terminal_codes() -> None:
    log = io.StringIO()
    with Progress("run", total_batches=2, total_runs=4, stream=log) as progress:
        progress.advance(2, batch_id="a")
        progress.advance(2, batch_id="b")
    (line,) = log.getvalue().splitlines()  # the first batch came before LOG_EVERY_S: only the last line
    assert "\x1b" not in line and PLAIN_LINE.fullmatch(line), line


PLAIN_LINE = re.compile(r"run \[[#.]{24}\] batches 2/2, runs 4/4, \d+ s elapsed, ETA 0 s")
CLOCK = re.compile(r"(\d+) s elapsed, ETA (\d+) s")


def test_on_a_terminal_the_clock_runs_and_the_eta_falls_between_batches() -> None:
    """A real pseudo-terminal: rich redraws the bar on its own, so with no batch ending for a while the
    elapsed time still grows and the ETA counts down (the line used to move only when a batch ended)."""
    leader, follower = pty.openpty()
    seen = bytearray()
    reader = threading.Thread(target=drain, args=(leader, seen), daemon=True)
    reader.start()
    with os.fdopen(follower, "w") as terminal:
        # Half the work done in the command's first 6 s: about 6 s left.
        progress = Progress("audit", 2, 2, stream=terminal, started=time.monotonic() - 6.0)
        with progress:
            progress.advance(1, batch_id="first")
            time.sleep(3.0)  # no batch ends: only the clock moves
            first_eta_s = progress.times()[1]
        reader.join(timeout=5)
    clocks = [(int(e), int(left)) for e, left in CLOCK.findall(strip_ansi(seen.decode(errors="replace")))]
    assert "\x1b[" in seen.decode(errors="replace"), "not drawn as a terminal's live bar"
    assert clocks[0][0] < clocks[-1][0], clocks  # the clock advanced
    assert clocks[0][1] > clocks[-1][1], clocks  # the ETA fell
    assert first_eta_s is not None and first_eta_s < 6.0


def drain(leader: int, into: bytearray) -> None:
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end closed
            return
        if not chunk:
            return
        into.extend(chunk)


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
