"""A progress bar on stderr for long commands: what is done of what is planned, elapsed time, and an ETA.

One machinery (``Bar``: the clock, the ETA, the live bar or the plain lines) and, over it, what each
command counts: ``Progress`` for `surge run` and `surge audit` (batches and runs), ``Tallies`` for the
commands whose unit is their own (`surge build`: items with an outcome and rows kept; `surge pull`:
sources and the items they held; `surge refactor`: items refactored). Every count comes from what a stage
already returns or stores (a batch's counts, a source's record), never from the data itself.

Runs count as their rows reach the store (``rows_stored``: a batch stores its finished rows at least every
``pipeline.batches.FLUSH_EVERY_S``), not only as their batch ends: a batch of programs that run for
minutes each used to show nothing for as long. Batches on a Dask cluster store their rows in another
process, so theirs count as each batch ends.

On a terminal, rich draws the bar in place and redraws it twice a second, so the clock runs and the ETA
counts down between batches (a line redrawn only when a batch ended froze for as long as the batch ran).
Otherwise (logs, CI, pipes) plain lines without ANSI codes: one at most every ``LOG_EVERY_S`` seconds
and one at the end, so a log of a day-long audit stays readable.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, TextIO

import psutil

BAR_CHARS = 24
LOG_EVERY_S = 10.0
REDRAWS_PER_S = 2  # the clock shows whole seconds: twice a second keeps it moving at little cost


def command_started() -> float:
    """When this command's process started, on the monotonic clock. The head start runs batches before
    the flow's body, where the line is made, begins: a clock started there read "0 s elapsed, ETA 0 s"
    with work already done."""
    age_s = max(0.0, time.time() - psutil.Process().create_time())
    return time.monotonic() - age_s


class Bar:
    """The machinery every command's bar shares; a subclass says what is counted (``figures``), how much
    of the work that is (``share``) and when the work is done (``done``).

    Use as ``with SomeBar(...) as bar:`` so that a terminal's live bar stops (and its cursor comes back)
    whatever ends the block."""

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        started: float | None = None,
        paced_from: float | None = None,
    ) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.started = command_started() if started is None else started
        self.paced_from = self.started if paced_from is None else paced_from  # when the work began
        self.last_shown = time.monotonic()
        self.lock = threading.Lock()  # counts may come from task threads while the flow's thread counts
        self.estimate: tuple[float, float] | None = None  # (when, seconds left then): the last ETA
        self.live: Any = None  # rich's Live, on a terminal, once drawn
        self.ended = False  # the last line shown: a count after the end (a build's finish) shows nothing

    def __enter__(self) -> Self:
        if self.stream.isatty() and not self.done():  # the clock shows from the start, before any count
            self.draw()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def done(self) -> bool:
        raise NotImplementedError

    def share(self) -> float:
        """How much of the work is done, 0 to 1."""
        raise NotImplementedError

    def figures(self) -> str:
        """The counts, as the line shows them (``batches 1/2, runs 3/4``)."""
        raise NotImplementedError

    def moved(self) -> None:
        """A count changed (the caller holds the lock): a new ETA, and the bar or a line shown."""
        self.estimate_left()
        self.show()

    def estimate_left(self) -> None:
        """A new ETA from the work done so far, at the pace so far; between two counts it counts down."""
        now = time.monotonic()
        share = self.share()
        if share > 0:
            self.estimate = (now, (now - self.paced_from) * (1 - share) / share)

    def times(self) -> tuple[float, float | None]:
        """Seconds elapsed since the command started, and seconds left (None before anything is done)."""
        now = time.monotonic()
        if self.done():
            return now - self.started, 0.0
        if self.estimate is None:
            return now - self.started, None
        when, left_s = self.estimate
        return now - self.started, max(0.0, left_s - (now - when))

    def show(self) -> None:
        if self.ended:
            return
        self.ended = self.done()
        if self.stream.isatty():
            self.draw()
        elif self.done() or time.monotonic() - self.last_shown >= LOG_EVERY_S:
            print(self.line(), file=self.stream, flush=True)
            self.last_shown = time.monotonic()

    def draw(self) -> None:
        """On a terminal: rich's live bar, started at the first draw and stopped when all is done."""
        if self.live is None:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self.stream, stderr=self.stream is sys.stderr)
            self.live = Live(
                get_renderable=self.renderable, console=console, refresh_per_second=REDRAWS_PER_S
            )
            self.live.start()
        self.live.refresh()
        if self.done():
            self.close()

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()

    def counts(self) -> str:
        elapsed_s, left_s = self.times()
        eta = "unknown" if left_s is None else f"{left_s:.0f} s"
        return f"{self.figures()}, {elapsed_s:.0f} s elapsed, ETA {eta}"

    def line(self) -> str:
        filled = round(BAR_CHARS * self.share())
        return f"{self.label} [{'#' * filled}{'.' * (BAR_CHARS - filled)}] {self.counts()}"

    def renderable(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        row = Table.grid(padding=(0, 1))
        row.add_row(
            Text(self.label, style="bold"),
            ProgressBar(total=1.0, completed=self.share(), width=BAR_CHARS),
            Text(self.counts()),
        )
        return row


class Progress(Bar):
    """`surge run` and `surge audit`: batches ended (and failed) and runs stored, of those planned."""

    def __init__(
        self,
        label: str,
        total_batches: int,
        total_runs: int,
        stream: TextIO | None = None,
        started: float | None = None,
    ) -> None:
        super().__init__(label, stream, started)
        self.total_batches = total_batches
        self.total_runs = total_runs
        self.batches = self.runs = self.failed_batches = 0
        self.counted: dict[str, int] = {}  # batch id -> its runs counted as their rows were stored

    def rows_stored(self, batch_id: str, runs: int) -> None:
        """Some of a running batch's runs reached the store (or were found there)."""
        with self.lock:
            self.counted[batch_id] = self.counted.get(batch_id, 0) + runs
            self.runs += runs
            self.moved()

    def advance(self, runs: int, failed: bool = False, batch_id: str | None = None) -> None:
        """A batch ended with ``runs`` runs done in all (those counted as stored are not counted again)."""
        with self.lock:
            already = self.counted.pop(batch_id, 0) if batch_id is not None else 0
            self.batches += 1
            self.runs += max(0, runs - already)
            self.failed_batches += int(failed)
            self.moved()

    def done(self) -> bool:
        return self.batches >= self.total_batches

    def share(self) -> float:
        share = self.batches / self.total_batches if self.total_batches else 1.0
        if self.total_runs:  # runs say more than batches: the first batches are the largest
            share = max(share, min(1.0, self.runs / self.total_runs))
        return share

    def figures(self) -> str:
        failed = f", {self.failed_batches} failed" if self.failed_batches else ""
        return f"batches {self.batches}/{self.total_batches}{failed}, runs {self.runs}/{self.total_runs}"


@dataclass
class Tally:
    """One count a bar shows: ``items 3/8`` (``total`` None: a count with no known end, ``items 412``);
    ``lost`` are units that ended without being done (a failed batch's items), named by ``lost_as``."""

    name: str
    total: int | None = None
    done: int = 0
    lost: int = 0
    lost_as: str = "failed"

    def share(self) -> float | None:
        if self.total is None:
            return None
        return min(1.0, (self.done + self.lost) / self.total) if self.total else 1.0

    def text(self) -> str:
        of = "" if self.total is None else f"/{self.total}"
        lost = f", {self.lost} {self.lost_as}" if self.lost else ""
        return f"{self.name} {self.done}{of}{lost}"


class Tallies(Bar):
    """A bar over a few named counts (``Tally``). The work's share is that of the count furthest behind
    (a build is as far as the fewer of its items and its rows say); it is done when every count with a
    total is reached, or when the command says so (``finish``: a build whose items ran out)."""

    def __init__(
        self, label: str, tallies: list[Tally], stream: TextIO | None = None, started: float | None = None
    ) -> None:
        # No head start works before these flows begin: the seconds before the bar (Prefect's API starting,
        # an earlier subset's build) are on the clock but are no pace of this work.
        super().__init__(label, stream, started, time.monotonic() if started is None else started)
        self.tallies = {tally.name: tally for tally in tallies}
        self.finished = False

    def __getitem__(self, name: str) -> Tally:
        return self.tallies[name]

    def count(self, **changes: int) -> None:
        """Add to counts by name (``count(items=2, rows=1)``)."""
        with self.lock:
            for name, change in changes.items():
                self.tallies[name].done += change
            self.moved()

    def set(self, name: str, done: int | None = None, total: int | None = None) -> None:
        """Set a count, or its total (a plan that grew by a round), from what the store says now."""
        with self.lock:
            tally = self.tallies[name]
            tally.done = tally.done if done is None else done
            tally.total = tally.total if total is None else total
            self.moved()

    def lose(self, name: str, count: int) -> None:
        """``count`` units ended without being done (a failed source, a failed batch's items)."""
        with self.lock:
            self.tallies[name].lost += count
            self.moved()

    def finish(self) -> None:
        """The command is done with this bar, whatever its counts say: the last line, ETA 0 s."""
        with self.lock:
            self.finished = True
            self.moved()

    def done(self) -> bool:
        shares = [share for tally in self.tallies.values() if (share := tally.share()) is not None]
        return self.finished or (bool(shares) and min(shares) >= 1.0)

    def share(self) -> float:
        shares = [share for tally in self.tallies.values() if (share := tally.share()) is not None]
        return 1.0 if self.finished else min(shares, default=0.0)

    def figures(self) -> str:
        return ", ".join(tally.text() for tally in self.tallies.values())
