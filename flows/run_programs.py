"""`surge run` and `surge audit`: execute a planned job, batch by batch, by reference.

The command plans first (``pipeline.batches.plan``: pending requests into the store's manifest), then this
flow gets the store path and the plan id; each task gets a batch id, reads its requests from the store,
writes its rows and returns counts. Prefect's API sees a few hundred bytes per batch, whatever the programs
hold (an 8 MB flow-parameter payload was refused by the API).

A batch that fails for a reason of ours is a Failed task run, and the flow then ends Failed; the command
reads the failures from the flow's final state and exits non-zero with each reason and its fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed

from flows.engine import Engine, Stored, current_engine, engine_here
from flows.head_start import as_they_end
from flows.naming import JobLabel, summary_markdown
from flows.progress import Progress
from flows.runtime import cluster_threads, publish_summary, task_runner, wait_for_task_runs
from flows.surge_flow import surge_flow
from pipeline.batches import BatchCounts, BatchFailed, batch_id_for
from pipeline.batches import execute_batch as execute_planned_batch
from pipeline.errors import ConfigurationError
from pipeline.records import RunRequest
from pipeline.stealing import offer, take_unstarted, withdraw
from pipeline.store import Store
from sandboxes.languages import spec_for

RETRIES = 2
RETRY_DELAY_S = 2
# Worth a retry: a worker lost its connection. Not worth one: our own refusals (BatchFailed: no bubblewrap,
# unknown backend) and the store's failures (BatchFailed too: a full disk, a read-only folder), which would
# fail the same way again after running the batch's programs once more.
TRANSIENT = (OSError, TimeoutError, ConnectionError)
FAILURES_LOGGED = 20  # distinct failures sent to Prefect's API as warnings; the CLI prints them all


def transient(task: Any, task_run: Any, state: Any) -> bool:
    return isinstance(state.data, TRANSIENT) and not isinstance(state.data, BatchFailed)


class JobFailed(Exception):
    """Some batches failed: the counts of the others, and each distinct failure as (reason, fix)."""

    def __init__(self, counts: dict[str, Any], failures: list[tuple[str, str]]) -> None:
        super().__init__(counts, failures)
        self.counts = counts
        self.failures = failures

    def __str__(self) -> str:
        return f"{len(self.failures)} kinds of batch failure: {self.failures[0][0]}"


# NO_CACHE: the batch's content id already makes a re-run harmless; Prefect's cache would only add I/O.
@task(
    name="execute_batch",
    task_run_name="{title}",
    cache_policy=NO_CACHE,
    retries=RETRIES,
    retry_delay_seconds=RETRY_DELAY_S,
    retry_condition_fn=transient,
)
def execute_batch(
    store_root: str,
    plan_id: str,
    batch_id: str,
    unsafe: bool,
    head_start: dict[str, Any] | None = None,
    title: str = "execute_batch",
) -> dict[str, Any]:
    """Run one planned batch in one sandbox; write its rows to the store; return its counts.

    ``title`` only names the task run (``batch 3/12 dr,tc``) in Prefect's UI: one parameter, since each
    rides as a task input on every event of the task run.

    A batch the head start took (flows/head_start.py) is not run again: its outcome is this task's, claimed
    here from the command's engine, or on Dask (no engine there) given by the flow as ``head_start``."""
    if head_start is not None:
        return head_start
    engine = engine_here()
    if engine is None:  # a Dask worker: no head start, no slots; its rows count as the batch ends
        return execute_planned_batch(store_root, plan_id, batch_id, unsafe).model_dump()
    early = engine.claim(batch_id)
    counts = early.result() if early is not None else engine.run_batch(store_root, plan_id, batch_id, unsafe)
    return counts.model_dump()


def failure_of(error: BaseException) -> tuple[str, str]:
    if isinstance(error, BatchFailed):
        return error.reason, error.fix
    return f"a batch crashed: {error!r}", "run again (finished batches are kept); if it persists, report it"


@surge_flow("surge-run")
def run_plan(store_root: str, plan_id: str, unsafe: bool, job: JobLabel) -> dict[str, Any]:
    engine = current_engine()
    engine.stop_head_start()  # before any claim: a batch is the head start's or its task's, never both
    store = Store(Path(store_root))
    batch_sizes = store.plan_batches(plan_id)
    on_cluster = engine.claim_taken(list(batch_sizes))
    total = BatchCounts()
    failures: dict[tuple[str, str], None] = {}
    # The task run's name: its place in the plan, the subsets.
    title = {b: f"batch {i}/{len(batch_sizes)} {job.batch_what()}" for i, b in enumerate(batch_sizes, 1)}

    progress = Progress(job.command, len(batch_sizes), sum(batch_sizes.values()))
    # rows_heard: this process's batches, as their rows are stored
    with progress, engine.rows_heard(progress.rows_stored):
        batch_of = {
            execute_batch.submit(store_root, plan_id, b, unsafe, title=title[b]): b
            for b in batch_sizes
            if b not in on_cluster
        }
        batch_of |= {
            execute_batch.submit(store_root, plan_id, b, unsafe, head_start=counts, title=title[b]): b
            for b, counts in as_they_end(on_cluster)
        }
        for future in as_completed(list(batch_of)):
            try:
                counts = BatchCounts.model_validate(future.result())
            except Exception as error:  # noqa: BLE001 - every failure is reported with its fix below
                failures.setdefault(failure_of(error))
                progress.advance(0, failed=True, batch_id=batch_of[future])
                continue
            total.add(counts)
            progress.advance(counts.runs + counts.found_stored, batch_id=batch_of[future])
    summary = {**total.model_dump(), "batches": len(batch_sizes), "failed_batches": progress.failed_batches}
    publish_job_summary(job, summary, list(failures))
    if failures:
        raise JobFailed(summary, list(failures))  # the flow run ends Failed, as its failed task runs are
    return summary


@surge_flow("surge-run")
def run_feed(
    store_root: str, feed_id: str, unsafe: bool, job: JobLabel, slots: int, first_plan: str | None = None
) -> dict[str, Any]:
    """A job fed as it runs (``pipeline.batches.Feed``): each batch the feed gives is planned and run as
    a slot frees, and the feed hears of its runs as they are stored (a long one as it ends, the rest with
    their batch), so the work it gives next (a label's next round) starts while other batches still run.
    The feed's own order is the start order: the longest first, across what were rounds. ``first_plan``:
    the feed's first batches, which the engine's head start ran while Prefect's API started; each is
    still one task run, claiming its outcome."""
    engine = current_engine()
    engine.stop_head_start()  # before any claim: a batch is the head start's or its task's, never both
    (feed, ended), store = engine.feed(feed_id), Store(Path(store_root))
    total = BatchCounts()
    failures: dict[tuple[str, str], None] = {}
    running: dict[Any, RunningBatch] = {}  # future -> its batch
    progress = Progress(job.command, 0, 0, open_ended=True)

    def submit(plan_id: str, batch: RunningBatch, new_runs: bool = True) -> None:
        progress.grow(batches=1, runs=len(batch.run_ids) if new_runs else 0)
        title = f"batch {progress.total_batches} {job.batch_what()}"
        future = execute_batch.submit(store_root, plan_id, batch.batch_id, unsafe, title=title)
        running[future] = batch
        future.add_done_callback(ended.put)

    def next_batch() -> tuple[list[RunRequest], bool] | None:
        """The feed's next batch (new runs), or else, with a core idle, runs taken from a running batch."""
        if (fed := feed.take()) is not None:
            return fed, True
        idle_core = len(running) < engine.slot_count
        taken = taken_from(list(running.values())) if idle_core else None
        return (taken, False) if taken else None

    with progress, engine.rows_heard(progress.rows_stored):
        if first_plan is not None:
            for batch_id in store.plan_batches(first_plan):  # offered as they were planned (execute_fed)
                requests = store.batch_requests(first_plan, batch_id)
                submit(first_plan, RunningBatch(batch_id, requests, stealable(requests)))
        while True:
            while len(running) < slots and (given := next_batch()) is not None:
                requests, new_runs = given
                batch_id = batch_id_for([request.run_id for request in requests])
                batch = RunningBatch(batch_id, requests, stealable(requests))
                offer(batch.batch_id)  # before its task can start it
                submit(store.plan([requests]), batch, new_runs)
            if not running:
                break
            message = ended.get()
            if isinstance(message, Stored):
                feed.landed(message.run_ids)
                continue
            batch = running.pop(message)
            withdraw(batch.batch_id)
            try:
                counts = BatchCounts.model_validate(message.result())
            except Exception as error:  # noqa: BLE001 - every failure is reported with its fix below
                failures.setdefault(failure_of(error))
                progress.advance(0, failed=True, batch_id=batch.batch_id)
            else:
                total.add(counts)
                progress.advance(counts.runs + counts.found_stored, batch_id=batch.batch_id)
            feed.landed(batch.run_ids)  # those it heard of as they were stored are not read again
    batches = progress.total_batches
    summary = {**total.model_dump(), "batches": batches, "failed_batches": progress.failed_batches}
    publish_job_summary(job, summary, list(failures))
    if failures:
        raise JobFailed(summary, list(failures))
    return summary


@dataclass
class RunningBatch:
    """A fed job's batch while its task runs: its requests (less any taken for another batch), and
    whether the flow may take from it (``pipeline.stealing``)."""

    batch_id: str
    requests: list[RunRequest]
    stealable: bool

    @property
    def run_ids(self) -> list[str]:
        return [request.run_id for request in self.requests]


def stealable(requests: list[RunRequest]) -> bool:
    """Whether a batch of these may be taken from: a proof checker's (Lean's) runs its batch whole,
    never asking what it may start."""
    return not any(checked_elsewhere(r.program.language) for r in requests)


def checked_elsewhere(language: str) -> bool:
    try:
        return spec_for(language).checker is not None
    except ConfigurationError:  # no spec: its batch refuses it before anything starts
        return False


def taken_from(running: list[RunningBatch]) -> list[RunRequest] | None:
    """The later half of the unstarted requests of the running batch with the most runs left (the next
    if that one has started them all), moved out of that batch."""
    for batch in sorted(running, key=lambda b: len(b.requests), reverse=True):
        taken = set(take_unstarted(batch.batch_id, batch.run_ids)) if batch.stealable else set()
        if taken:
            moved = [request for request in batch.requests if request.run_id in taken]
            batch.requests = [request for request in batch.requests if request.run_id not in taken]
            return moved
    return None


def publish_job_summary(job: JobLabel, summary: dict[str, Any], failures: list[tuple[str, str]]) -> None:
    """The flow run's summary artifact and log line, each failure of ours as a warning (bounded)."""
    line = (
        f"{job.flow_run_name()}: {summary.get('runs', 0)} runs, {summary.get('found_stored', 0)} found "
        f"stored, {summary['batches']} batches, {summary['failed_batches']} failed"
    )
    notes = [f"failed: {reason} (fix: {fix})" for reason, fix in failures[:FAILURES_LOGGED]]
    if job.report:
        notes.append(f"report: {job.report}")
    counts = {"programs": job.programs, "run requests": job.runs, **summary}
    link = (Path(job.report).resolve().as_uri(), "HTML report") if job.report else None
    warnings = [f"{reason}; fix: {fix}" for reason, fix in failures[:FAILURES_LOGGED]]
    markdown = summary_markdown(job.flow_run_name(), counts, notes)
    publish_summary(f"surge-{job.command}-summary", markdown, line, link, warnings)


def run_fed_job(
    engine: Engine,
    store_root: Path,
    feed_id: str,
    unsafe: bool,
    threads: int,
    dask_address: str | None,
    label: JobLabel,
    first_plan: str | None = None,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Run a fed job (``run_feed``) with ``threads`` batches running (``fed_slots``). ``first_plan``: its
    first batches, planned for the head start. Returns (counts, failures as (reason, fix)); never raises
    for a failed batch."""
    job = run_feed.with_options(
        name=label.flow_name,
        flow_run_name=label.flow_run_name(),
        task_runner=task_runner(threads, dask_address),
    )
    with engine.connected(label.tags()):
        state = job(str(store_root), feed_id, unsafe, label, threads, first_plan, return_state=True)
        counts, failures = job_outcome(state, batches=0)
        wait_for_task_runs(state.state_details.flow_run_id, int(counts.get("batches", 0)))
    return counts, failures


def fed_slots(workers: int, dask_address: str | None) -> int:
    """Batches a fed job keeps running: here one more than run programs at once (Engine.sandbox_slots),
    on Dask one per worker thread."""
    return cluster_threads(dask_address) if dask_address else workers + 1


def run_job(
    engine: Engine,
    store_root: Path,
    plan_id: str,
    batches: int,
    unsafe: bool,
    workers: int,
    dask_address: str | None = None,
    name: str | JobLabel = "surge-run",
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Run a plan; returns (counts, failures as (reason, fix)). Never raises for a failed batch.

    The engine's head start (flows/head_start.py) may be running the plan's batches meanwhile: the flow
    stops it as its body begins, and its batches are claimed by their tasks."""
    label = name if isinstance(name, JobLabel) else JobLabel(command=name.removeprefix("surge-"))
    runner = task_runner(workers, dask_address)
    job = run_plan.with_options(name=label.flow_name, flow_run_name=label.flow_run_name(), task_runner=runner)
    # Failures reach the user as one line each, from the CLI, not as tracebacks.
    with engine.connected(label.tags()):
        state = job(str(store_root), plan_id, unsafe, label, return_state=True)
        wait_for_task_runs(state.state_details.flow_run_id, batches)
    return job_outcome(state, batches)


def job_outcome(state: Any, batches: int) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """(counts, failures) from a job flow's final state: a failed batch is a failure in the list, a
    crashed flow every batch failed."""
    if state.is_completed():
        return state.result(), []
    error = state.result(raise_on_failure=False)
    if isinstance(error, JobFailed):
        return error.counts, error.failures
    crash = error if isinstance(error, BaseException) else RuntimeError(state.message or "flow failed")
    return {"batches": batches, "failed_batches": batches}, [failure_of(crash)]
