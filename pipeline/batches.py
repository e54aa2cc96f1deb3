"""Plan run requests into batches in the store, and execute one batch from the store (no engine here).

The flows (``flows/run_programs.py``) only pass references: the store path, a plan id, a batch id. A batch
reads its requests from its row group of the plan's part in the store's manifest, skips the runs already
stored (a re-run of a finished batch, e.g. after a Dask worker died, PrefectHQ/prefect#15442, writes
nothing), executes the rest in one sandbox, and stores its finished rows as they come: a part at least
every ``FLUSH_EVERY_S`` and one at its end (``RowWriter``), so a batch of long programs loses at most that
much to an interrupt. Each part is written under the store's write lock, holding only runs the store does
not hold yet: two copies of one batch at once (a Dask re-run beside a worker thought lost, two commands on
one store) store each row once, whatever their parts' timing.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from pipeline.errors import SurgeError
from pipeline.records import QuarantinedRecord, RunRequest, RunResult, Verdict, content_id
from pipeline.stealing import running_batch, starting

if TYPE_CHECKING:  # the store (pyarrow) loads when a batch runs, not when the CLI builds its parser
    from pipeline.store import Store


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
# ones last keep the workers finishing together. LARGEST_BATCH bounds what a retry repeats (an interrupt
# loses at most FLUSH_EVERY_S of a batch's finished rows). Batches of 2 at the end: most of a batch's cost
# overlaps other batches' programs (flows/engine.py, ``sandbox_slots``), and the last batch runs alone on
# its core (measured, 1,000 programs: idle cores in the last second 0.57 -> 0.26 core-s against batches
# of 8).
SMALLEST_BATCH = 2
LARGEST_BATCH = 64
GUIDE = 2


def guided_sizes(count: int, workers: int, guide: int = GUIDE) -> list[int]:
    """Batch sizes for ``count`` runs over ``workers``: large first, shrinking towards the end."""
    sizes: list[int] = []
    left = count
    while left > 0:
        share = -(-left // (guide * max(1, workers)))
        size = min(left, max(SMALLEST_BATCH, min(LARGEST_BATCH, share)))
        sizes.append(size)
        left -= size
    return sizes


def batched(
    items: list[RunRequest],
    size: int | None,
    workers: int = 1,
    cost_s: Mapping[str, float] | None = None,
) -> list[list[RunRequest]]:
    """Batches of ``size`` (None: guided sizes), never mixing backends (a batch runs in one sandbox).

    ``cost_s`` (run id -> expected seconds) makes guided batches follow time, not count: a batch also ends
    once it holds its share of the time left, so a long program ordered first runs in a batch of its own
    instead of holding a long batch on one core while the others finish."""
    by_backend: dict[str, list[RunRequest]] = {}
    for item in items:
        by_backend.setdefault(item.backend, []).append(item)
    batches: list[list[RunRequest]] = []
    for group in by_backend.values():
        if size is None and cost_s:
            sizes = timed_sizes([cost_s.get(item.run_id, 0.0) for item in group], workers)
        else:
            sizes = guided_sizes(len(group), workers) if size is None else [size] * -(-len(group) // size)
        starts = accumulate(sizes, initial=0)
        batches += [group[start : start + length] for start, length in zip(starts, sizes, strict=False)]
    return batches


def timed_sizes(costs_s: list[float], workers: int) -> list[int]:
    """Guided sizes where a batch stops at the count's share or at the time's share, whichever comes first
    (at least one program a batch)."""
    sizes: list[int] = []
    start = 0
    while start < len(costs_s):
        left = costs_s[start:]
        size = next_timed_size(iter(left), len(left), sum(left), workers)
        sizes.append(size)
        start += size
    return sizes


def next_timed_size(
    costs_s: Iterator[float], count: int, total_s: float, workers: int, guide: int = GUIDE
) -> int:
    """The size of the next timed batch over what is left: ``count`` requests of ``total_s`` expected
    seconds, whose costs ``costs_s`` gives in start order, each batch a ``1/guide`` share per worker.
    Takes from it exactly the costs the batch holds (a feed pops its queue through it)."""
    most = guided_sizes(count, workers, guide)[0]
    share_s = total_s / (guide * max(1, workers))
    size, spent_s = 0, 0.0
    while size < most and (size == 0 or spent_s < share_s):
        spent_s += next(costs_s)
        size += 1
    return size


class Feed(Protocol):
    """A job whose work is not known when it starts: an audit hands a label's next round to the engine as
    soon as that label's runs have landed, so no round waits for the slowest label of the one before,
    and both cores stay busy to the end (flows/run_programs.py ``run_feed`` drives it).

    Called from one thread, the flow's: ``take`` when a batch slot is free, ``landed`` as each batch ends.
    ``planned``: the requests it gave or found stored; ``found_stored``: of those, the ones the store held
    before the job (never run)."""

    planned: int
    found_stored: int

    def take(self) -> list[RunRequest] | None:
        """The next batch to run (one backend, the longest expected first); None: nothing pending now,
        which ends the job once no batch is running either."""
        ...

    def landed(self, run_ids: list[str]) -> None:
        """These runs are stored (a long one as it ended), or their batch ended: each run is stored, or
        failed (a failure of ours, never a row). A run may be told twice, as stored and with its batch."""
        ...


def plan(
    store: Store,
    requests: list[RunRequest],
    batch_size: int | None,
    workers: int = 1,
    cost_s: Mapping[str, float] | None = None,
) -> tuple[str, int]:
    """Write the pending requests to the manifest: (plan id, number of batches).

    ``batch_size`` None: guided sizes for ``workers`` (the flow runs the largest batches first), by
    expected time where ``cost_s`` gives it (``batched``)."""
    batches = batched(requests, batch_size, workers, cost_s)
    return store.plan(start_order(batches, cost_s)), len(batches)


def start_order(
    batches: list[list[RunRequest]], cost_s: Mapping[str, float] | None
) -> list[list[RunRequest]]:
    """The order the flow starts batches in: the longest first (by expected seconds where known, else by
    count), so the long ones start early and the short ones fill the end, the workers finishing together."""
    if cost_s:
        return sorted(batches, key=lambda b: -sum(cost_s.get(r.run_id, 0.0) for r in b))
    return sorted(batches, key=len, reverse=True)


@contextmanager
def failing_the_batch(fix: str) -> Iterator[None]:
    """A SurgeError inside (the store, the sandbox) fails the batch as a BatchFailed with its reason and
    hint (``fix`` without one): our own failure, never retried, and it pickles back from a Dask worker."""
    try:
        yield
    except SurgeError as error:
        raise BatchFailed(str(error), error.hint or fix) from None


def execute_batch(
    store_root: Path | str,
    plan_id: str,
    batch_id: str,
    unsafe: bool,
    flush_every_s: float | None = None,
    slot: AbstractContextManager[Any] | None = None,
    heard: RowsListener | None = None,
    at_once_s: float | None = None,
) -> BatchCounts:
    """Run one planned batch in one sandbox and store its rows as they finish (at least every
    ``flush_every_s``, default ``flush_interval_s()``); sandbox errors are quarantined, not rows.

    ``slot``: held while the batch runs programs (the command's engine bounds how many batches of its
    process do at once, flows/engine.py ``sandbox_slots``; none on a Dask worker). ``heard``: told of
    each part the batch stores (the progress line). ``at_once_s``: a run that took this long is stored
    as it ends (``STORED_AT_ONCE_S``)."""
    from pipeline.store import Store
    from sandboxes import open_backend

    store = Store(store_root)
    with failing_the_batch("run `surge store check`"):
        requests = store.batch_requests(plan_id, batch_id)
    if not requests:
        raise BatchFailed(
            f"batch {batch_id} is not in plan {plan_id} of {store_root}",
            "the workers must see the same store as the command: put it on a shared path (docs/scale-out.md)",
        )
    stored = store.stored_run_ids([r.run_id for r in requests])
    todo = [r for r in requests if r.run_id not in stored]
    # Also on a failure or an interrupt, the writer stores what finished before it leaves.
    with RowWriter(store, batch_id, flush_every_s or flush_interval_s(), heard, at_once_s) as rows:
        if todo:
            with (
                failing_the_batch("see `surge doctor`"),
                slot or nullcontext(),
                # the name run ids record: the registry knows its backend (bwrap's unsafe-local too)
                open_backend(todo[0].backend, unsafe=unsafe, workers=1) as sandbox,
                running_batch(batch_id),
            ):
                # a backend that does not ask before each program (or does not say) starts them all now
                if not getattr(sandbox, "asks_before_starting", False):
                    todo = [request for request in todo if starting(request.run_id)]
                for result in sandbox.run_batch(todo):
                    rows.add(result)
    counts = rows.counts
    counts.found_stored += len(stored)
    return counts


# How often at most a batch's finished rows wait for the store. A batch used to store its rows only as
# its last program ended: an audit of programs recorded at up to 146 CPU-s each stored nothing for over
# ten minutes, and an interrupt lost all of it. A batch of short programs still writes one part, at its
# end; a long one at most a part per 30 s (2,880 a day per batch thread), which `surge store compact` merges.
FLUSH_EVERY_S = 30.0

# The fault tests lower the interval for whole commands (tests/flows/test_faults.py); nobody else needs to.
FLUSH_EVERY_S_VARIABLE = "SURGE_FLUSH_EVERY_S"


def flush_interval_s() -> float:
    """FLUSH_EVERY_S, or the environment's SURGE_FLUSH_EVERY_S (a positive number of seconds)."""
    text = os.environ.get(FLUSH_EVERY_S_VARIABLE)
    if text is None:
        return FLUSH_EVERY_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise BatchFailed(
            f"{FLUSH_EVERY_S_VARIABLE}={text!r} is not a positive number of seconds",
            f"unset it (a batch then stores its rows every {FLUSH_EVERY_S:.0f} s) or set it to e.g. 5",
        )
    return seconds


# Who hears of a batch's rows as they are stored: (batch id, the run ids of the part: stored, found stored
# by another copy, or quarantined as a sandbox error). The progress line counts them (flows/progress.py),
# and a fed job's labels move on with them (flows/run_programs.py ``run_feed``), through the engine.
RowsListener = Callable[[str, list[str]], None]

# In a fed job, a run that took this long is stored as it ends, not with its batch's next part: the audit
# moves its label to its next round as it lands, while the rest of its batch runs (a wrong label's
# repeats waited for the 6 s program after it in its batch, one core idle at the end). Costs a part per
# such run: ~10 ms against at least a second. A planned job has nothing waiting on one run, and keeps
# its parts few.
STORED_AT_ONCE_S = 1.0


class RowWriter:
    """A batch's finished runs, stored as a part at least every ``flush_every_s`` (a thread of its own:
    the batch's thread waits on a program that may run for minutes), as a run that took ``at_once_s``
    or more (or found its toolchain missing) ends, and when the batch leaves."""

    def __init__(
        self,
        store: Store,
        batch_id: str,
        flush_every_s: float,
        heard: RowsListener | None = None,
        at_once_s: float | None = None,
    ) -> None:
        self.store = store
        self.at_once_s = at_once_s
        self.heard = heard
        self.batch_id = batch_id
        self.flush_every_s = flush_every_s
        self.counts = BatchCounts()
        self.pending: list[RunResult] = []
        self.pending_lock = threading.Lock()
        self.writing = threading.Lock()  # one part at a time: the timer's and the batch's last
        self.stopped = threading.Event()
        self.timer = threading.Thread(target=self.tick, name=f"rows-{batch_id[:8]}", daemon=True)

    def __enter__(self) -> RowWriter:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.timer.join()
        self.flush()

    def add(self, result: RunResult) -> None:
        with self.pending_lock:
            self.pending.append(result)
        if self.at_once_s is not None and stored_at_once(result, self.at_once_s):
            self.flush()

    def tick(self) -> None:
        while not self.stopped.wait(self.flush_every_s):
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - the rows stay pending; the batch's last flush raises it
                return

    def flush(self) -> None:
        """Store the pending rows as one part; on a failure they stay pending."""
        with self.writing:
            with self.pending_lock:
                taken, self.pending = self.pending, []
            if not taken:
                return
            try:
                counts = write_rows(self.store, taken)
            except BaseException:
                with self.pending_lock:
                    self.pending[:0] = taken
                raise
            self.counts.add(counts)
        if self.heard is not None:
            self.heard(self.batch_id, [r.run_id for r in taken])


# Parts of the runs table are written one at a time, across threads (a lock) and processes (flock on a
# file beside them): what a part leaves out is what the store held when it was written.
_write_lock = threading.Lock()
WRITE_LOCK_FILE = ".write.lock"


@contextmanager
def store_write_lock(store: Store) -> Iterator[None]:
    """Exclusive, among this store's writers on this machine (and on a shared file system that supports
    locks: NFS v4 does); released by the kernel if the holder is killed."""
    from pipeline.parts import disk_errors

    with _write_lock:
        with disk_errors(store.runs.folder):  # a read-only or full store fails here first: the store's error
            store.runs.folder.mkdir(parents=True, exist_ok=True)
            lock = (store.runs.folder / WRITE_LOCK_FILE).open("a")
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield


def write_rows(store: Store, results: list[RunResult]) -> BatchCounts:
    """Finished runs as one part, minus those the store already holds (another copy of the batch stored
    them); a sandbox failure is quarantined instead (a rerun retries).

    A store that cannot take the rows (a full disk, a read-only folder) fails the batch with the store's
    reason and fix: never retried, since running the programs again would fail the same write."""
    failed = [
        QuarantinedRecord(
            stage="run", source=r.origin.get("source", "run"), location=r.run_id, reason=sandbox_detail(r)
        )
        for r in results
        if r.verdict is Verdict.SANDBOX_ERROR
    ]
    with failing_the_batch("run `surge store check`"), store_write_lock(store):
        ran = [r for r in results if r.verdict is not Verdict.SANDBOX_ERROR]
        stored = store.stored_run_ids([r.run_id for r in ran])
        kept = [r for r in ran if r.run_id not in stored]
        store.runs.append(kept)
        # Named by the runs it holds: should a file system without locks let two copies write the same
        # runs, the second part replaces the first, never adds to it.
        store.runs.flush(name=f"part-batch-{batch_id_for([r.run_id for r in kept])}.parquet")
        store.quarantine.append_new(failed)
    return BatchCounts(
        runs=len(results),
        written=len(kept),
        sandbox_errors=len(failed),
        verdicts=dict(Counter(r.verdict.value for r in results)),
    )


def stored_at_once(result: RunResult, at_once_s: float) -> bool:
    """A long run, or news that reorders the feed: a toolchain found missing sends every queued run of
    that toolchain first (pipeline/audit/feed.py), and held to its batch's end that news came 20-30 s
    late in CRUXEval-X's audit, its Julia and Swift labels waiting on it."""
    return result.verdict is Verdict.TOOLCHAIN_MISSING or result.held_s >= at_once_s


def batch_id_for(run_ids: list[str]) -> str:
    return content_id("batch", run_ids)


def sandbox_detail(result: RunResult) -> str:
    phase = result.run or result.compile
    return f"sandbox error: {phase.detail if phase else 'no phase recorded'}"
