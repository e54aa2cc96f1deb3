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
from flows.progress import LOG_EVERY_S, Progress, Tallies, Tally


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


def test_a_plan_that_grows_shows_its_new_total_and_the_share_falls_back() -> None:
    """build: items with an outcome of those planned so far, rows kept of --n. A round of 2 items kept one
    row of 2: the next round plans 2 more, and the bar says 2 of 4 items, not 2 of 2."""
    bar = Tallies("build sc", [Tally("items", total=2), Tally("rows", total=2)], stream=io.StringIO())
    bar.count(items=2, rows=1)
    assert (bar.share(), bar.done()) == (0.5, False)
    bar.set("items", total=4)
    assert "items 2/4, rows 1/2" in bar.line() and bar.share() == 0.5 and not bar.done()
    bar.count(items=1, rows=1)
    assert not bar.done()  # every row is kept, but an item of the round has no outcome yet
    bar.count(items=1)
    assert bar.done() and bar.times()[1] == 0.0


def test_a_bar_the_command_finishes_short_shows_one_last_line() -> None:
    """A build whose items ran out ends short of its rows: finished, ETA 0, one line, not two."""
    log = io.StringIO()
    with Tallies("build rl", [Tally("items", total=2), Tally("rows", total=5)], stream=log) as bar:
        bar.count(items=2, rows=2)
        bar.finish()
    (line,) = log.getvalue().splitlines()
    assert re.fullmatch(r"build rl \[#{24}\] items 2/2, rows 2/5, \d+ s elapsed, ETA 0 s", line), line


def test_lost_units_end_the_work_and_counts_without_a_total_show_alone() -> None:
    log = io.StringIO()
    pull = Tallies("pull", [Tally("sources", total=2), Tally("items")], stream=log)
    pull.count(sources=1, items=19)
    pull.lose("sources", 1)
    assert pull.done() and "pull [" in log.getvalue()
    assert "sources 1/2, 1 failed, items 19, " in log.getvalue()
    refactor = Tallies("refactor", [Tally("items", total=8, lost_as="in failed batches")], io.StringIO())
    refactor.count(items=3)
    refactor.lose("items", 5)
    assert refactor.done() and "items 3/8, 5 in failed batches" in refactor.line()


def test_the_pace_of_a_tallied_bar_starts_with_the_bar_its_clock_with_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Prefect's API took the command's first 20 s; the build's first of 4 items then took 1 s: about 3 s
    left, not 63 (the clock still says 21 s elapsed)."""
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(progress_module, "command_started", lambda: 80.0)
    bar = Tallies("build sc", [Tally("items", total=4)], stream=io.StringIO())
    clock[0] = 101.0
    bar.count(items=1)
    assert bar.times() == (21.0, 3.0)
