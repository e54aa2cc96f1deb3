"""The flows count their work into the stage's observer (flows/progress.py), each run once; the CLI's
observer draws the counts as a bar (pipeline/commands/progress.py); a library caller's gets the events
and nothing is drawn."""

from __future__ import annotations

import io
import os
import pty
import re
import threading
import time

import pytest

from flows.progress import Progress, Tallies
from pipeline.commands import progress as progress_module
from pipeline.commands.display import LiveObserver
from pipeline.commands.progress import LOG_EVERY_S, Bar
from pipeline.observe import PROGRESS, StageEvent, Tally, watched_by


class Recorded:
    def __init__(self) -> None:
        self.events: list[StageEvent] = []

    def notify(self, event: StageEvent) -> None:
        self.events.append(event)


def drawn(stream: io.StringIO | object) -> LiveObserver:
    return LiveObserver(stream)  # type: ignore[arg-type]


def bar_of(observer: LiveObserver, label: str) -> Bar:
    return observer.bars.by_label[label]


def test_a_counter_reaches_the_observer_of_the_stage_it_runs_for_and_draws_nothing() -> None:
    """What a flow counts goes to the observer its stage was called with (a context variable, so two
    threads' calls reach their own); with none, nothing is sent and nothing is printed anywhere."""
    mine = Recorded()
    with watched_by(mine), Progress("run", total_batches=1, total_runs=2) as progress:
        progress.advance(2, batch_id="a")
    assert [(e.step, e.finished) for e in mine.events] == [(PROGRESS, False), (PROGRESS, True)]
    assert [t.text() for t in mine.events[-1].tallies] == ["batches 1/1", "runs 2/2"]
    assert Progress("run", 1, 2).observer is None  # outside any stage: counted for no one


def test_runs_count_as_their_rows_are_stored_and_once_when_their_batch_ends() -> None:
    seen = Recorded()
    progress = Progress("audit", total_batches=2, total_runs=10, observer=seen)
    progress.rows_stored("a", ["r1", "r2", "r3"])
    assert (progress.batches, progress.runs) == (0, 3)
    progress.advance(5, batch_id="a")  # its 3 stored runs are not counted again
    progress.advance(5, batch_id="b")
    assert (progress.batches, progress.runs) == (2, 10)
    assert [t.text() for t in seen.events[-1].tallies] == ["batches 2/2", "runs 10/10"]


def test_a_fed_jobs_count_grows_and_ends_only_when_the_job_says_so() -> None:
    """An audit's one job is fed as it runs: no batch is known when it starts, and every batch fed so
    far may end before the next is fed. Its counter once said "done" at its first event (0 of 0) and
    sent nothing after: the bar stood at 0/0 for a whole audit."""
    seen = Recorded()
    with Progress("audit", 0, 0, observer=seen, open_ended=True) as progress:
        progress.grow(batches=1, runs=2)
        progress.advance(2, batch_id="a")  # every batch fed so far has ended: not done
        progress.grow(batches=1, runs=3)
        progress.advance(3, batch_id="b")
    assert [e.finished for e in seen.events] == [False, False, False, True]
    assert [t.text() for t in seen.events[-1].tallies] == ["batches 2/2", "runs 5/5"]


def test_a_log_shows_stored_rows_while_no_batch_has_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    log = io.StringIO()  # not a terminal: a line at most every LOG_EVERY_S
    with Progress("audit", total_batches=1, total_runs=64, observer=drawn(log)) as progress:
        clock[0] = LOG_EVERY_S + 1
        progress.rows_stored("long", ["r1", "r2"])
        assert "batches 0/1, runs 2/64" in log.getvalue()


def test_the_clock_runs_from_the_commands_start_not_the_flows(monkeypatch: pytest.MonkeyPatch) -> None:
    # The head start ran half the batches in the 40 s before the flow's body made the counter.
    monkeypatch.setattr(progress_module.psutil.Process, "create_time", lambda self: time.time() - 40.0)
    observer = drawn(io.StringIO())
    progress = Progress("run", total_batches=2, total_runs=2, observer=observer)
    progress.advance(1, batch_id="ran-in-the-head-start")
    line = bar_of(observer, "run").line()
    elapsed_s, eta_s = (int(part.split(" s")[0].split()[-1]) for part in line.split(", ")[-2:])
    assert 39 <= elapsed_s <= 45 and 39 <= eta_s <= 45, line


def test_a_log_gets_plain_lines_without_terminal_codes() -> None:
    log = io.StringIO()
    with Progress("run", total_batches=2, total_runs=4, observer=drawn(log)) as progress:
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
        observer = drawn(terminal)
        observer.bars.by_label["audit"] = Bar("audit", terminal, started=time.monotonic() - 6.0)
        with Progress("audit", 2, 2, observer=observer) as progress:
            progress.advance(1, batch_id="first")
            time.sleep(3.0)  # no batch ends: only the clock moves
            first_eta_s = bar_of(observer, "audit").times()[1]
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
    observer = drawn(io.StringIO())
    counts = [Tally(name="items", total=2), Tally(name="rows", total=2)]
    progress = Tallies("build sc", counts, observer=observer)
    progress.count(items=2, rows=1)
    bar = bar_of(observer, "build sc")
    assert (bar.share(), bar.done()) == (0.5, False)
    progress.set("items", total=4)
    assert "items 2/4, rows 1/2" in bar.line() and bar.share() == 0.5 and not bar.done()
    progress.count(items=1, rows=1)
    assert not bar.done()  # every row is kept, but an item of the round has no outcome yet
    progress.count(items=1)
    assert bar.done() and bar.times()[1] == 0.0


def test_a_bar_the_command_finishes_short_shows_one_last_line() -> None:
    """A build whose items ran out ends short of its rows: finished, ETA 0, one line, not two."""
    log = io.StringIO()
    counts = [Tally(name="items", total=2), Tally(name="rows", total=5)]
    with Tallies("build rl", counts, observer=drawn(log)) as progress:
        progress.count(items=2, rows=2)
        progress.finish()
    (line,) = log.getvalue().splitlines()
    assert re.fullmatch(r"build rl \[#{24}\] items 2/2, rows 2/5, \d+ s elapsed, ETA 0 s", line), line


def test_lost_units_end_the_work_and_counts_without_a_total_show_alone() -> None:
    log = io.StringIO()
    pull = Tallies("pull", [Tally(name="sources", total=2), Tally(name="items")], observer=drawn(log))
    pull.count(sources=1, items=19)
    pull.lose("sources", 1)
    assert "pull [" in log.getvalue()
    assert "sources 1/2, 1 failed, items 19, " in log.getvalue()
    observer = drawn(io.StringIO())
    counts = [Tally(name="items", total=8, lost_as="in failed batches")]
    refactor = Tallies("refactor", counts, observer=observer)
    refactor.count(items=3)
    refactor.lose("items", 5)
    bar = bar_of(observer, "refactor")
    assert bar.done() and "items 3/8, 5 in failed batches" in bar.line()


def test_a_failed_batch_shows_as_lost_and_the_work_still_ends() -> None:
    log = io.StringIO()
    with Progress("run", total_batches=2, total_runs=4, observer=drawn(log)) as progress:
        progress.advance(0, failed=True, batch_id="a")
        progress.advance(2, batch_id="b")
    assert "batches 1/2, 1 failed, runs 2/4, " in log.getvalue()


def test_the_pace_of_a_tallied_bar_starts_with_the_counter_its_clock_with_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Prefect's API took the command's first 20 s; the build's first of 4 items then took 1 s: about 3 s
    left, not 63 (the clock still says 21 s elapsed)."""
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(progress_module, "command_started", lambda: 80.0)
    observer = drawn(io.StringIO())
    progress = Tallies("build sc", [Tally(name="items", total=4)], observer=observer)
    clock[0] = 101.0
    progress.count(items=1)
    assert bar_of(observer, "build sc").times() == (21.0, 3.0)
