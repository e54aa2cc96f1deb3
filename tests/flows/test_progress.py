"""The progress line counts runs as their rows reach the store, each run once."""

from __future__ import annotations

import io
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
