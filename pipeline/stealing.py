"""Work stealing: a free slot takes the programs a running batch has not started yet.

A batch runs its programs one after another on one core. A fed job's expected times are partly guesses
(a first round's from a program's size), so near its end the queue can be empty while one batch still
holds programs it has not started, the other core idle. There the flow takes the later half of that
batch's unstarted requests (the last one too) and runs them as a batch of its own
(``flows/run_programs.py``). A program the driver queued ahead in its runner is started: behind a long
one it queues none (``sandboxes.core.QUEUE_AHEAD_BEHIND_S``), so a batch's long programs stay takeable.

Between the two sides, this registry of the batches the flow offered (``offered``): the batch's driver
asks before it starts each program (``starting``, from ``sandboxes.core``), and a request taken elsewhere
is skipped (no result: its thief's batch stores it); a request it started can no longer be taken. The
driver's thread names its batch (``running_batch``). In-process only: a batch on a Dask worker, or one
nobody offered (a planned job's), is never asked about and never stolen from. A fed job's head start
offers its batches as it plans them (``pipeline.stages.batches.execute_fed``), before any can start.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Offered:
    """What the driver of one offered batch has started, and what the flow took from it."""

    started: set[str] = field(default_factory=set)
    taken: set[str] = field(default_factory=set)


_offered: dict[str, Offered] = {}
_lock = threading.Lock()
_here = threading.local()  # .batch_id: the batch whose programs this thread runs


def offer(batch_id: str) -> None:
    """The flow may take from this batch until ``withdraw`` (as its task ends). Called before the batch
    can start, so what an earlier batch of the same id started or lost is forgotten."""
    with _lock:
        _offered[batch_id] = Offered()


def withdraw(batch_id: str) -> None:
    with _lock:
        _offered.pop(batch_id, None)


def take_unstarted(batch_id: str, run_ids: list[str]) -> list[str]:
    """The later half (rounded up) of the batch's ``run_ids`` that its driver has not started, the last
    one too once it started another: from now on its driver skips them."""
    with _lock:
        state = _offered.get(batch_id)
        if state is None:
            return []
        unstarted = [r for r in run_ids if r not in state.started and r not in state.taken]
        # The batch has one running (and, behind a short one, one queued ahead): the larger half is the
        # fair share. The last one too: a batch's last long program, left to run after the one running,
        # held one core while the other idled (the driver no longer queues behind a long one for that).
        # A batch that started none keeps one: taken whole, it would be the same batch under the same id.
        kept = len(unstarted) // 2 if state.started else max(1, len(unstarted) // 2)
        taken = unstarted[kept:]
        state.taken.update(taken)
        return taken


@contextmanager
def running_batch(batch_id: str) -> Iterator[None]:
    """This thread runs the programs of ``batch_id`` (``starting`` asks about it)."""
    before, _here.batch_id = getattr(_here, "batch_id", None), batch_id
    try:
        yield
    finally:
        _here.batch_id = before


def starting(run_id: str) -> bool:
    """Whether this thread's batch may start ``run_id`` (False: the flow took it); from here, it cannot
    be taken."""
    batch_id = getattr(_here, "batch_id", None)
    if batch_id is None:
        return True
    with _lock:
        state = _offered.get(batch_id)
        if state is None:
            return True
        if run_id in state.taken:
            return False
        state.started.add(run_id)
        return True
