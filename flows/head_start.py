"""A head start: a plan's first batches run while Prefect's local API is still starting.

The API server takes seconds to come up (its imports alone are ~5 CPU-s on a 2-core machine), and until
then no task can start: a job would leave every core idle for that long. So, for a job that runs here (not
on Dask), ``HeadStart`` runs the plan's batches in plan order on ``workers`` threads, with the same
engine-free code a task calls (``pipeline.batches.execute_batch``), until the API answers. Then it stops
taking batches and the flow starts. Each task first claims its batch: a batch the head start finished
hands its counts (or its failure) to the task, one still running is awaited, and every other batch runs in
its task as usual. So every batch is still exactly one Prefect task run with its real outcome, and none
runs twice. Nothing here imports Prefect: the head start begins before the command pays for that import.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

from pipeline.batches import BatchCounts, execute_batch

# batch id -> the head start's outcome for it; a task claims (pops) its batch's entry once
_claims: dict[str, Future[BatchCounts]] = {}
_claims_lock = threading.Lock()


def claim(batch_id: str) -> Future[BatchCounts] | None:
    """The head start's outcome for this batch, once; None when the task must run the batch itself."""
    with _claims_lock:
        return _claims.pop(batch_id, None)


class HeadStart:
    def __init__(self, store_root: Path | str, batch_ids: list[str], unsafe: bool, workers: int) -> None:
        self.store_root = str(store_root)
        self.unsafe = unsafe
        self.pending = deque(batch_ids)
        self.stopped = False
        self.started: list[str] = []
        self.threads = [threading.Thread(target=self.work, name=f"head-start-{n}") for n in range(workers)]
        for thread in self.threads:
            thread.start()

    def work(self) -> None:
        while (taken := self.take()) is not None:
            batch_id, outcome = taken
            try:
                outcome.set_result(execute_batch(self.store_root, batch_id, self.unsafe))
            except BaseException as error:  # noqa: BLE001 - the claiming task re-raises it as its own
                outcome.set_exception(error)

    def take(self) -> tuple[str, Future[BatchCounts]] | None:
        """The next batch and its outcome, registered for its task to claim (which may happen at once);
        None once stopped or done."""
        with _claims_lock:
            if self.stopped or not self.pending:
                return None
            batch_id = self.pending.popleft()
            outcome: Future[BatchCounts] = Future()
            outcome.set_running_or_notify_cancel()
            _claims[batch_id] = outcome
            self.started.append(batch_id)
            return batch_id, outcome

    def finished(self) -> tuple[BatchCounts, int]:
        """The counts of the batches it finished and stored, and how many those are (for a job whose
        engine never came up; call after ``close``)."""
        with _claims_lock:
            outcomes = [_claims[batch_id] for batch_id in self.started if batch_id in _claims]
        stored = [outcome.result() for outcome in outcomes if outcome.exception() is None]
        total = BatchCounts()
        for counts in stored:
            total.add(counts)
        return total, len(stored)

    def stop(self) -> None:
        """Take no new batch; those running finish and wait for their tasks."""
        with _claims_lock:
            self.stopped = True

    def close(self) -> None:
        """Stop, and let the running batches end (their rows are stored)."""
        self.stop()
        for thread in self.threads:
            thread.join()

    def forget(self) -> None:
        """Drop the outcomes no task claimed (a job that ended early)."""
        with _claims_lock:
            for batch_id in self.started:
                _claims.pop(batch_id, None)


@contextmanager
def head_start(
    store_root: Path | str, batch_ids: list[str], unsafe: bool, workers: int, enabled: bool = True
) -> Iterator[HeadStart | None]:
    """Run batches until the flow calls ``stop()``; always closed, also on an interrupt."""
    if not enabled or not batch_ids:
        yield None
        return
    started = HeadStart(store_root, batch_ids, unsafe, workers)
    try:
        yield started
    finally:
        started.close()
        started.forget()
