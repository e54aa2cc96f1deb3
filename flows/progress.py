"""A progress bar on stderr for long commands: batches and runs done, elapsed time, and an ETA.

On a terminal the line is redrawn in place; otherwise (logs, CI, pipes) one line is printed at most every
``LOG_EVERY_S`` seconds and at the end, so a log of a day-long audit stays readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_CHARS = 24
LOG_EVERY_S = 10.0


class Progress:
    def __init__(self, label: str, total_batches: int, total_runs: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total_batches = total_batches
        self.total_runs = total_runs
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.last_shown = self.started
        self.batches = self.runs = self.failed_batches = 0

    def advance(self, runs: int, failed: bool = False) -> None:
        self.batches += 1
        self.runs += runs
        self.failed_batches += int(failed)
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
        left_s = elapsed_s * (1 - share) / share if share > 0 else 0.0
        filled = round(BAR_CHARS * share)
        failed = f", {self.failed_batches} failed" if self.failed_batches else ""
        return (
            f"{self.label} [{'#' * filled}{'.' * (BAR_CHARS - filled)}] "
            f"batches {self.batches}/{self.total_batches}{failed}, runs {self.runs}/{self.total_runs}, "
            f"{elapsed_s:.0f} s elapsed, ETA {left_s:.0f} s"
        )
