"""What a long flow counts while it works: batches and runs (``Progress``: `surge run`, `surge audit`), or
a command's own units (``Tallies``: `surge build`'s items with an outcome and rows kept, `surge pull`'s
sources and the items they held, `surge refactor`'s items). Every count comes from what a stage already
returns or stores (a batch's counts, a source's record), never from the data itself.

The counts go, as ``progress`` events, to the observer of the stage the flow runs for
(``pipeline.observe.watcher``, read where the counter is made); nothing is drawn here. The CLI's observer
draws its bar from them (pipeline/commands/progress.py); a library caller gets the events, or nothing.

Runs count as their rows reach the store (``rows_stored``: a batch stores its finished rows at least every
``pipeline.batches.FLUSH_EVERY_S``), not only as their batch ends: a batch of programs that run for
minutes each used to show nothing for as long. Batches on a Dask cluster store their rows in another
process, so theirs count as each batch ends.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Self

from pipeline.observe import PROGRESS, Observer, StageEvent, Tally, send, watcher


class Counter:
    """What every counter shares: its label, its lock (counts come from task threads while the flow's
    thread counts) and the event each change sends; a subclass says what it counts (``tallies``), how
    much of the work that is (``share``) and when the work is done (``done``).

    Use as ``with SomeCounter(...) as counter:``: the first event goes out on entering (a bar's clock
    shows from the start), and the last on leaving, whatever ends the block."""

    def __init__(self, label: str, observer: Observer | None = None, paced_from: float | None = None) -> None:
        self.label = label
        self.observer = watcher() if observer is None else observer
        self.paced_from = paced_from
        self.lock = threading.Lock()
        self.ended = False  # the last event sent: a count after the end (a build's finish) sends nothing
        self.finished = False

    def __enter__(self) -> Self:
        with self.lock:
            self.moved()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.finish()

    def finish(self) -> None:
        """The command is done with this work, whatever its counts say (a build whose items ran out, a
        flow that failed): the last event."""
        with self.lock:
            self.finished = True
            self.moved()

    def tallies(self) -> tuple[Tally, ...]:
        raise NotImplementedError

    def share(self) -> float:
        """How much of the work is done, 0 to 1."""
        raise NotImplementedError

    def done(self) -> bool:
        raise NotImplementedError

    def moved(self) -> None:
        """A count changed (the caller holds the lock): the counts now, to the observer. With none (a
        library call that asked for no news) no event is made: counts land at every flush of rows."""
        if self.ended or self.observer is None:
            return
        finished = self.finished or self.done()
        self.ended = finished
        event = StageEvent(
            stage=self.label,
            step=PROGRESS,
            tallies=self.tallies(),
            share=1.0 if self.finished else self.share(),
            finished=finished,
            paced_from=self.paced_from,
        )
        send(self.observer, event)


class Progress(Counter):
    """`surge run` and `surge audit`: batches ended (and failed) and runs stored, of those planned. Its
    pace is the command's own: the head start ran batches before the flow's body made the counter."""

    def __init__(
        self,
        label: str,
        total_batches: int,
        total_runs: int,
        observer: Observer | None = None,
        open_ended: bool = False,
    ) -> None:
        super().__init__(label, observer)
        self.total_batches = total_batches
        self.total_runs = total_runs
        self.batches = self.runs = self.failed_batches = 0
        # A fed job's totals grow as it runs (``grow``): it is done when the job says so (``finish``),
        # never because the batches fed so far have ended.
        self.open_ended = open_ended
        self.counted: dict[str, int] = {}  # batch id -> its runs counted as their rows were stored

    def rows_stored(self, batch_id: str, run_ids: list[str]) -> None:
        """Some of a running batch's runs reached the store (or were found there)."""
        with self.lock:
            self.counted[batch_id] = self.counted.get(batch_id, 0) + len(run_ids)
            self.runs += len(run_ids)
            self.moved()

    def advance(self, runs: int, failed: bool = False, batch_id: str | None = None) -> None:
        """A batch ended with ``runs`` runs done in all (those counted as stored are not counted again)."""
        with self.lock:
            already = self.counted.pop(batch_id, 0) if batch_id is not None else 0
            self.batches += 1
            self.runs += max(0, runs - already)
            self.failed_batches += int(failed)
            self.moved()

    def grow(self, batches: int, runs: int) -> None:
        """More work than counted so far (a fed job's next batch): its totals grow."""
        with self.lock:
            self.total_batches += batches
            self.total_runs += runs

    def done(self) -> bool:
        return not self.open_ended and self.batches >= self.total_batches

    def share(self) -> float:
        share = self.batches / self.total_batches if self.total_batches else 1.0
        if self.total_runs:  # runs say more than batches: the first batches are the largest
            share = max(share, min(1.0, self.runs / self.total_runs))
        return share

    def tallies(self) -> tuple[Tally, ...]:
        ended_well = self.batches - self.failed_batches
        return (
            Tally(name="batches", done=ended_well, total=self.total_batches, lost=self.failed_batches),
            Tally(name="runs", done=self.runs, total=self.total_runs),
        )


class Tallies(Counter):
    """A few named counts (``Tally``). The work's share is that of the count furthest behind (a build is
    as far as the fewer of its items and its rows say); it is done when every count with a total is
    reached, or when the command says so (``finish``: a build whose items ran out). Its pace starts with
    the counter: the seconds before it (Prefect's API starting, an earlier subset's build) are on the
    clock but are no pace of this work."""

    def __init__(self, label: str, tallies: list[Tally], observer: Observer | None = None) -> None:
        super().__init__(label, observer, paced_from=time.monotonic())
        self.counts = {tally.name: tally for tally in tallies}

    def __getitem__(self, name: str) -> Tally:
        return self.counts[name]

    def count(self, **changes: int) -> None:
        """Add to counts by name (``count(items=2, rows=1)``)."""
        with self.lock:
            for name, change in changes.items():
                self.change(name, done=self.counts[name].done + change)
            self.moved()

    def set(self, name: str, done: int | None = None, total: int | None = None) -> None:
        """Set a count, or its total (a plan that grew by a round), from what the store says now."""
        with self.lock:
            tally = self.counts[name]
            self.change(
                name, done=tally.done if done is None else done, total=tally.total if total is None else total
            )
            self.moved()

    def lose(self, name: str, count: int) -> None:
        """``count`` units ended without being done (a failed source, a failed batch's items)."""
        with self.lock:
            self.change(name, lost=self.counts[name].lost + count)
            self.moved()

    def change(self, name: str, **fields: int | None) -> None:
        self.counts[name] = self.counts[name].model_copy(update=fields)

    def done(self) -> bool:
        shares = [share for tally in self.counts.values() if (share := tally.share()) is not None]
        return bool(shares) and min(shares) >= 1.0

    def share(self) -> float:
        shares = [share for tally in self.counts.values() if (share := tally.share()) is not None]
        return min(shares, default=0.0)

    def tallies(self) -> tuple[Tally, ...]:
        return tuple(self.counts.values())
