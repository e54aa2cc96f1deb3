"""A head start: a plan's first batches run while Prefect's local API is still starting.

The API server takes seconds to come up (its imports alone are ~5 CPU-s on a 2-core machine), and until
then no task can start: a job would leave every core idle for that long. So ``HeadStart`` runs the plan's
batches in plan order, one per thread, with the same engine-free code a task calls
(``pipeline.batches.execute_batch``), until the flow's body begins (``Engine.stop_head_start``): the API has
answered and the flow run exists, which took ~1 s of the API's first requests after its health check.
Every batch is still exactly one Prefect task run with its real outcome, and none runs twice:

- Here (``HeadStart``): ``workers`` threads run the batches. Each task first claims its batch (``claim``):
  a batch the head start finished hands its counts (or its failure) to the task, one still running is
  awaited in the task's slot, every other batch runs in its task as usual.
- On Dask (``ClusterHeadStart``): one thread per worker thread of the cluster submits a batch to the
  cluster and waits for it. A task there runs in another process, where no claim can reach it, so the
  flow claims instead (``claim_taken``): it submits the batches nobody took first (Dask queues them
  behind the running ones, so no core runs two batches), then, as each taken batch ends, its task with the
  head start's counts as a parameter (a batch the head start could not finish runs in its task again).

A head start belongs to the command's engine (flows/engine.py: ``Engine.head_start``), which tasks of
this process reach through the context the engine sets; nothing here is module state.

Nothing here imports Prefect: the head start begins before the command pays for that import.
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.batches import BatchCounts, execute_batch

if TYPE_CHECKING:
    from flows.engine import Engine


def as_they_end(outcomes: dict[str, Future[BatchCounts]]) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """Each batch as its outcome arrives, with its counts; None where the head start failed it (its task
    then runs it again: a worker lost, the store hiccuped)."""
    batch_of = {outcome: batch_id for batch_id, outcome in outcomes.items()}
    for outcome in as_completed(batch_of):
        yield batch_of[outcome], None if outcome.exception() else outcome.result().model_dump()


class HeadStart:
    """``workers`` threads of this process run the plan's batches in order until stopped; each outcome
    waits for its batch's task to claim it (``claim``), once."""

    def __init__(
        self,
        engine: Engine,
        store_root: Path | str,
        plan_id: str,
        batch_ids: list[str],
        unsafe: bool,
        workers: int,
    ) -> None:
        self.engine = engine
        self.store_root = str(store_root)
        self.plan_id = plan_id
        self.unsafe = unsafe
        self.pending = deque(batch_ids)
        self.stopped = False
        self.started: list[str] = []
        # batch id -> the outcome of a batch taken, until claimed (by its task here, by the flow on Dask)
        self.outcomes: dict[str, Future[BatchCounts]] = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.work, name=f"head-start-{n}") for n in range(workers)]
        for thread in self.threads:
            thread.start()

    def execute(self, batch_id: str) -> BatchCounts:
        return self.engine.run_batch(self.store_root, self.plan_id, batch_id, self.unsafe)

    def work(self) -> None:
        while (taken := self.take()) is not None:
            batch_id, outcome = taken
            try:
                outcome.set_result(self.execute(batch_id))
            except BaseException as error:  # noqa: BLE001 - the claiming task re-raises it as its own
                outcome.set_exception(error)

    def take(self) -> tuple[str, Future[BatchCounts]] | None:
        """The next batch and its outcome, registered for its claim (which may come at once); None once
        stopped or done."""
        with self.lock:
            if self.stopped or not self.pending:
                return None
            batch_id = self.pending.popleft()
            outcome: Future[BatchCounts] = Future()
            outcome.set_running_or_notify_cancel()
            self.outcomes[batch_id] = outcome
            self.started.append(batch_id)
            return batch_id, outcome

    def claim(self, batch_id: str) -> Future[BatchCounts] | None:
        """For a task of this process: the outcome of its batch, once; None when the task must run the
        batch itself."""
        with self.lock:
            return self.outcomes.pop(batch_id, None)

    def claim_taken(self, batch_ids: list[str]) -> dict[str, Future[BatchCounts]]:
        """For the flow: the outcomes of the batches a cluster head start took (none here: tasks of this
        process claim their own)."""
        return {}

    def finished(self) -> tuple[BatchCounts, int]:
        """The counts of the batches it finished and stored, and how many those are (for a job whose
        engine never came up; call after ``close``)."""
        with self.lock:
            outcomes = [self.outcomes[batch_id] for batch_id in self.started if batch_id in self.outcomes]
        stored = [outcome.result() for outcome in outcomes if outcome.exception() is None]
        total = BatchCounts()
        for counts in stored:
            total.add(counts)
        return total, len(stored)

    def stop(self) -> None:
        """Take no new batch; those running finish and wait for their claims."""
        with self.lock:
            self.stopped = True

    def close(self) -> None:
        """Stop, and let the running batches end (their rows are stored)."""
        self.stop()
        for thread in self.threads:
            thread.join()

    def forget(self) -> None:
        """Drop the outcomes nobody claimed (a job that ended early)."""
        with self.lock:
            self.outcomes.clear()


class ClusterHeadStart(HeadStart):
    """The head start on a Dask cluster: each thread keeps one batch running on the workers. A task on a
    worker cannot reach this process: the flow claims the outcomes (``claim_taken``)."""

    def __init__(
        self,
        engine: Engine,
        store_root: Path | str,
        plan_id: str,
        batch_ids: list[str],
        unsafe: bool,
        address: str,
    ) -> None:
        from distributed import Client

        from pipeline.errors import EngineUnavailable

        try:
            self.client = Client(address, set_as_default=False, timeout=30)
        except (OSError, TimeoutError) as error:
            raise EngineUnavailable(
                f"the Dask scheduler at {address} did not take a client: {error}",
                hint="check the scheduler (`dask scheduler`, docs/scale-out.md) or drop --dask-address",
            ) from None
        threads = sum(self.client.nthreads().values())
        super().__init__(engine, store_root, plan_id, batch_ids, unsafe, max(1, threads))

    def execute(self, batch_id: str) -> BatchCounts:
        # A key of its own: no result of an earlier command for this batch is served from the scheduler.
        key = f"surge-head-start-{batch_id}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(
            execute_batch, self.store_root, self.plan_id, batch_id, self.unsafe, key=key
        )
        return future.result()

    def claim(self, batch_id: str) -> Future[BatchCounts] | None:
        return None

    def claim_taken(self, batch_ids: list[str]) -> dict[str, Future[BatchCounts]]:
        with self.lock:
            return {b: self.outcomes.pop(b) for b in batch_ids if b in self.outcomes}

    def close(self) -> None:
        super().close()
        self.client.close()
