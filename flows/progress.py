"""A progress bar on stderr for long commands: batches and runs done, elapsed time, and an ETA.

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
from types import TracebackType
from typing import Any, TextIO

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


class Progress:
    """Use as ``with Progress(...) as progress:`` so that a terminal's live bar stops (and its cursor comes
    back) whatever ends the block."""

    def __init__(
        self,
        label: str,
        total_batches: int,
        total_runs: int,
        stream: TextIO | None = None,
        started: float | None = None,
    ) -> None:
        self.label = label
        self.total_batches = total_batches
        self.total_runs = total_runs
        self.stream = stream or sys.stderr
        self.started = command_started() if started is None else started
        self.last_shown = time.monotonic()
        self.batches = self.runs = self.failed_batches = 0
        self.counted: dict[str, int] = {}  # batch id -> its runs counted as their rows were stored
        self.lock = threading.Lock()  # rows are stored from batch threads, batches end in the flow's
        self.estimate: tuple[float, float] | None = None  # (when, seconds left then): the last ETA
        self.live: Any = None  # rich's Live, on a terminal, once drawn

    def __enter__(self) -> Progress:
        if self.stream.isatty() and not self.done():  # the clock shows from the start, before any count
            self.draw()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def rows_stored(self, batch_id: str, runs: int) -> None:
        """Some of a running batch's runs reached the store (or were found there)."""
        with self.lock:
            self.counted[batch_id] = self.counted.get(batch_id, 0) + runs
            self.runs += runs
            self.estimate_left()
            self.show()

    def advance(self, runs: int, failed: bool = False, batch_id: str | None = None) -> None:
        """A batch ended with ``runs`` runs done in all (those counted as stored are not counted again)."""
        with self.lock:
            already = self.counted.pop(batch_id, 0) if batch_id is not None else 0
            self.batches += 1
            self.runs += max(0, runs - already)
            self.failed_batches += int(failed)
            self.estimate_left()
            self.show()

    def done(self) -> bool:
        return self.batches >= self.total_batches

    def share(self) -> float:
        share = self.batches / self.total_batches if self.total_batches else 1.0
        if self.total_runs:  # runs say more than batches: the first batches are the largest
            share = max(share, min(1.0, self.runs / self.total_runs))
        return share

    def estimate_left(self) -> None:
        """A new ETA from the work done so far, at the pace so far; between two counts it counts down."""
        now = time.monotonic()
        share = self.share()
        if share > 0:
            self.estimate = (now, (now - self.started) * (1 - share) / share)

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
        failed = f", {self.failed_batches} failed" if self.failed_batches else ""
        elapsed_s, left_s = self.times()
        eta = "unknown" if left_s is None else f"{left_s:.0f} s"
        return (
            f"batches {self.batches}/{self.total_batches}{failed}, runs {self.runs}/{self.total_runs}, "
            f"{elapsed_s:.0f} s elapsed, ETA {eta}"
        )

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
