"""A progress bar on stderr for long commands: what is done of what is planned, elapsed time, and an ETA.

The flows count their work (flows/progress.py) into the observer of the stage they run for
(pipeline/observe.py); this is the CLI's drawing of those counts, one ``Bar`` per piece of counted work
(``run``, ``audit``, ``build sc``, ``pull``, ``refactor``). A library caller gets the same events, or
nothing: no bar is drawn below the CLI.

On a terminal, rich draws the bar in place and redraws it twice a second, so the clock runs and the ETA
counts down between batches (a line redrawn only when a batch ended froze for as long as the batch ran).
Otherwise (logs, CI, pipes) plain lines without ANSI codes: one at most every ``LOG_EVERY_S`` seconds
and one at the end, so a log of a day-long audit stays readable.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

import psutil

from pipeline.observe import PROGRESS, StageEvent

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
    """One piece of counted work as a person sees it: its counts (the last ``progress`` event's), the
    clock, the ETA, and the live bar or the plain lines. A terminal's live bar stops (and its cursor
    comes back) at the work's last event, or when the command closes it, whatever ended the work."""

    def __init__(
        self, label: str, stream: TextIO, started: float | None = None, paced_from: float | None = None
    ) -> None:
        self.label = label
        self.stream = stream
        self.started = command_started() if started is None else started
        self.paced_from = self.started if paced_from is None else paced_from  # when the work began
        self.last_shown = time.monotonic()
        self.lock = threading.Lock()  # counts come from task threads while the flow's thread counts
        self.estimate: tuple[float, float] | None = None  # (when, seconds left then): the last ETA
        self.live: Any = None  # rich's Live, on a terminal, once drawn
        self.ended = False  # the last line shown: a count after the end (a build's finish) shows nothing
        self.counted = StageEvent(stage=label, step=PROGRESS)

    def update(self, event: StageEvent) -> None:
        """The work's counts now: a new ETA, and the bar or a line shown."""
        with self.lock:
            self.counted = event
            self.moved()

    def done(self) -> bool:
        return self.counted.finished

    def share(self) -> float:
        """How much of the work is done, 0 to 1."""
        return self.counted.share

    def figures(self) -> str:
        """The counts, as the line shows them (``batches 1/2, runs 3/4``)."""
        return ", ".join(tally.text() for tally in self.counted.tallies)

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


class Bars:
    """The bars of one command, by label: a new one when a piece of work starts counting (a build's next
    subset) or starts again after its end (a second run in one process)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.by_label: dict[str, Bar] = {}

    def update(self, event: StageEvent) -> None:
        with self.lock:
            bar = self.by_label.get(event.stage)
            if bar is None or bar.ended:
                bar = self.by_label[event.stage] = Bar(event.stage, self.stream, paced_from=event.paced_from)
        bar.update(event)

    def close(self) -> None:
        """Stop every live bar (the command ends, maybe on an error, with work still counting)."""
        with self.lock:
            for bar in self.by_label.values():
                bar.close()
