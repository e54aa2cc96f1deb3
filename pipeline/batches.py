"""Plan run requests into batches in the store, and execute one batch from the store (no engine here).

The flows (``flows/run_programs.py``) only pass references: the store path, a plan id, a batch id. A batch
reads its requests from its row group of the plan's part in the store's manifest, skips the runs already
stored (a re-run of a finished batch, e.g. after a Dask worker died, PrefectHQ/prefect#15442, writes
nothing), executes the rest in one sandbox, and writes its rows as one part named after the batch, so
writing it twice replaces it whole: no row is lost and none is stored twice.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from pydantic import BaseModel, Field

from pipeline.errors import SurgeError
from pipeline.records import QuarantinedRecord, RunRequest, RunResult, Verdict, content_id

if TYPE_CHECKING:  # the store (pyarrow) loads when a batch runs, not when the CLI builds its parser
    from pipeline.store import Store

P = ParamSpec("P")
R = TypeVar("R")


class BatchCounts(BaseModel):
    """What a batch task returns to the flow: counts only, whatever the programs' size."""

    runs: int = 0
    written: int = 0
    found_stored: int = Field(default=0, description="stored by an earlier copy of the task (a re-run)")
    sandbox_errors: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict)

    def add(self, other: BatchCounts) -> None:
        self.runs += other.runs
        self.written += other.written
        self.found_stored += other.found_stored
        self.sandbox_errors += other.sandbox_errors
        self.verdicts = dict(Counter(self.verdicts) + Counter(other.verdicts))


class BatchFailed(Exception):
    """A batch could not run for a reason of ours (no sandbox, bad configuration): reason and fix.

    Plain positional args, so it survives pickling to and from a Dask worker."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(reason, fix)
        self.reason = reason
        self.fix = fix

    def __str__(self) -> str:
        return self.reason


# Automatic batch sizes (guided self-scheduling): each batch takes a 1/GUIDE share of what is left per
# worker, between SMALLEST_BATCH and LARGEST_BATCH. A batch costs the engine ~0.1 CPU-s (a task run, a
# sandbox start, a manifest read, a Parquet part), so large batches first keep the task runs few; small
# ones last keep the workers finishing together. LARGEST_BATCH bounds what an interrupt can lose (a batch
# stores its rows when it ends) and what a retry repeats. Batches of 2 at the end: most of a batch's cost
# overlaps other batches' programs (sandbox_slots), and the last batch runs alone on its core (measured,
# 1,000 programs: idle cores in the last second 0.57 -> 0.26 core-s against batches of 8).
SMALLEST_BATCH = 2
LARGEST_BATCH = 64
GUIDE = 2


def guided_sizes(count: int, workers: int) -> list[int]:
    """Batch sizes for ``count`` runs over ``workers``: large first, shrinking towards the end."""
    sizes: list[int] = []
    left = count
    while left > 0:
        share = -(-left // (GUIDE * max(1, workers)))
        size = min(left, max(SMALLEST_BATCH, min(LARGEST_BATCH, share)))
        sizes.append(size)
        left -= size
    return sizes


def batched(items: list[RunRequest], size: int | None, workers: int = 1) -> list[list[RunRequest]]:
    """Batches of ``size`` (None: guided sizes), never mixing backends (a batch runs in one sandbox)."""
    by_backend: dict[str, list[RunRequest]] = {}
    for item in items:
        by_backend.setdefault(item.backend, []).append(item)
    batches: list[list[RunRequest]] = []
    for group in by_backend.values():
        sizes = guided_sizes(len(group), workers) if size is None else [size] * -(-len(group) // size)
        starts = accumulate(sizes, initial=0)
        batches += [group[start : start + length] for start, length in zip(starts, sizes, strict=False)]
    return batches


def plan(
    store: Store, requests: list[RunRequest], batch_size: int | None, workers: int = 1
) -> tuple[str, int]:
    """Write the pending requests to the manifest: (plan id, number of batches).

    ``batch_size`` None: guided sizes for ``workers`` (the flow runs the largest batches first)."""
    batches = batched(requests, batch_size, workers)
    return store.plan(batches), len(batches)


# How many batches of this process may run programs at once (unset: every batch thread, as on a Dask
# worker). A command sets it to its cores and runs one batch thread more than that (``sandbox_slots``): a
# batch's own work before its first program and after its last (its requests, its part) took ~35 ms of
# its core (0.8 s over the 23 batches of a 1,000-program job, measured); the spare thread does it while
# the other batches' programs run. Alone that was not visible on the wall; it is what lets the last
# batches be small (SMALLEST_BATCH) without a task run's cost each.
_running: list[threading.BoundedSemaphore] = []


@contextmanager
def sandbox_slots(count: int) -> Iterator[None]:
    """At most ``count`` batches of this process run programs at once, inside."""
    _running.append(threading.BoundedSemaphore(count))
    try:
        yield
    finally:
        _running.pop()


def execute_batch(store_root: Path | str, plan_id: str, batch_id: str, unsafe: bool) -> BatchCounts:
    """Run one planned batch in one sandbox and store its rows; sandbox errors are quarantined, not rows."""
    from pipeline.store import Store
    from sandboxes import open_backend

    store = Store(store_root)
    try:
        requests = store.batch_requests(plan_id, batch_id)
    except SurgeError as error:
        raise BatchFailed(str(error), error.hint or "run `surge store check`") from None
    if not requests:
        raise BatchFailed(
            f"batch {batch_id} is not in plan {plan_id} of {store_root}",
            "the workers must see the same store as the command: put it on a shared path (docs/scale-out.md)",
        )
    stored = store.stored_run_ids([r.run_id for r in requests])
    todo = [r for r in requests if r.run_id not in stored]
    results: list[RunResult] = []
    if todo:
        try:
            backend = "bwrap" if todo[0].backend == "unsafe-local" else todo[0].backend
            with (
                _running[-1] if _running else nullcontext(),
                open_backend(backend, unsafe=unsafe, workers=1) as sandbox,
            ):
                results = list(sandbox.run_batch(todo))
        except SurgeError as error:
            raise BatchFailed(str(error), error.hint or "see `surge doctor`") from None
    counts = write_rows(store, results)
    counts.found_stored = len(stored)
    return counts


def store_failures_fail_the_batch(write: Callable[P, R]) -> Callable[P, R]:
    """A store that cannot take the rows (a full disk, a read-only folder) fails the batch with the store's
    reason and fix, as a BatchFailed: never retried, since running the programs again would fail the same
    write. Plain positional args, like every BatchFailed: it pickles back from a Dask worker."""

    @functools.wraps(write)
    def writing(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return write(*args, **kwargs)
        except SurgeError as error:
            raise BatchFailed(str(error), error.hint or "run `surge store check`") from None

    return writing


@store_failures_fail_the_batch
def write_rows(store: Store, results: list[RunResult]) -> BatchCounts:
    """The batch's finished runs as one part; a sandbox failure is quarantined instead (a rerun retries)."""
    kept = [r for r in results if r.verdict is not Verdict.SANDBOX_ERROR]
    failed = [
        QuarantinedRecord(
            stage="run", source=r.origin.get("source", "run"), location=r.run_id, reason=sandbox_detail(r)
        )
        for r in results
        if r.verdict is Verdict.SANDBOX_ERROR
    ]
    store.runs.append(kept)
    # Named by the runs it holds: a second copy of this task (a Dask re-run) replaces it, never adds to it.
    store.runs.flush(name=f"part-batch-{batch_id_for([r.run_id for r in results])}.parquet")
    store.quarantine.append_new(failed)
    return BatchCounts(
        runs=len(results),
        written=len(kept),
        sandbox_errors=len(failed),
        verdicts=dict(Counter(r.verdict.value for r in results)),
    )


def batch_id_for(run_ids: list[str]) -> str:
    return content_id("batch", run_ids)


def sandbox_detail(result: RunResult) -> str:
    phase = result.run or result.compile
    return f"sandbox error: {phase.detail if phase else 'no phase recorded'}"
