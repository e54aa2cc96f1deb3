"""A progress bar on stderr for long commands: batches and runs done, elapsed time, and an ETA.

Runs count as their rows reach the store (``rows_stored``: a batch stores its finished rows at least every
``pipeline.batches.FLUSH_EVERY_S``), not only as their batch ends: a batch of programs that run for
minutes each used to show nothing for as long. Batches on a Dask cluster store their rows in another
process, so theirs count as each batch ends.

On a terminal the line is redrawn in place; otherwise (logs, CI, pipes) one line is printed at most every
``LOG_EVERY_S`` seconds and at the end, so a log of a day-long audit stays readable.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

import psutil

BAR_CHARS = 24
LOG_EVERY_S = 10.0


def command_started() -> float:
    """When this command's process started, on the monotonic clock. The head start runs batches before
    the flow's body, where the line is made, begins: a clock started there read "0 s elapsed, ETA 0 s"
    with work already done."""
    age_s = max(0.0, time.time() - psutil.Process().create_time())
    return time.monotonic() - age_s


class Progress:
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

    def rows_stored(self, batch_id: str, runs: int) -> None:
        """Some of a running batch's runs reached the store (or were found there)."""
        with self.lock:
            self.counted[batch_id] = self.counted.get(batch_id, 0) + runs
            self.runs += runs
            self.show()

    def advance(self, runs: int, failed: bool = False, batch_id: str | None = None) -> None:
        """A batch ended with ``runs`` runs done in all (those counted as stored are not counted again)."""
        with self.lock:
            already = self.counted.pop(batch_id, 0) if batch_id is not None else 0
            self.batches += 1
            self.runs += max(0, runs - already)
            self.failed_batches += int(failed)
            self.show()

    def show(self) -> None:
        done = self.batches == self.total_batches
        now = time.monotonic()
        if self.stream.isatty():
            self.stream.write("\r" + self.line() + ("\n" if done else ""))
            self.stream.flush()
        elif done or now - self.last_shown >= LOG_EVERY_S:
            print(self.line(), file=self.stream, flush=True)
            self.last_shown = now

    def line(self) -> str:
        elapsed_s = time.monotonic() - self.started
        share = self.batches / self.total_batches if self.total_batches else 1.0
        if self.total_runs:  # runs say more than batches: the first batches are the largest
            share = max(share, min(1.0, self.runs / self.total_runs))
        left_s = elapsed_s * (1 - share) / share if share > 0 else 0.0
        filled = round(BAR_CHARS * share)
        failed = f", {self.failed_batches} failed" if self.failed_batches else ""
        return (
            f"{self.label} [{'#' * filled}{'.' * (BAR_CHARS - filled)}] "
            f"batches {self.batches}/{self.total_batches}{failed}, runs {self.runs}/{self.total_runs}, "
            f"{elapsed_s:.0f} s elapsed, ETA {left_s:.0f} s"
        )
