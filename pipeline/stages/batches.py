"""Run planned requests in batches under Prefect, here or on a Dask cluster (shared by run and audit).

The stage's side of what the CLI once did itself: plan the requests into the store's manifest, run what is
not stored yet, and count what happened, each failure of ours with its fix.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.errors import ConfigurationError
from pipeline.records import Limits, PhaseLimits, RunRequest
from pipeline.stage_results import Failure, failures_of

if TYPE_CHECKING:
    from flows.naming import JobLabel
    from pipeline.batches import Feed
    from pipeline.store import Store

# The GIL hand-over while batches run in this process's threads (Python's default is 5 ms).
BATCH_THREAD_SWITCH_S = 0.0005


class Batching(BaseModel):
    """How requests are cut into batches and where they run."""

    model_config = ConfigDict(frozen=True)

    batch_size: int | None = Field(default=None, description="requests per batch (None: automatic)")
    workers: int | None = Field(default=None, description="programs at a time (None: this machine's cores)")
    dask_address: str | None = Field(default=None, description="run the batches on this Dask scheduler")


class JobCounts(BaseModel):
    """What the batches of a job did."""

    runs: int = 0
    written: int = 0
    found_stored: int = 0
    sandbox_errors: int = 0
    verdicts: dict[str, int] = Field(default_factory=dict)
    batches: int = 0
    failed_batches: int = 0


class RequestsOutcome(JobCounts):
    """A job's counts, the requests planned and already stored, and the failures of ours."""

    planned_runs: int
    already_stored: int
    old_rule_rows: int = Field(description="stored rows whose run ids follow the old rule")
    failures: list[Failure] = Field(default_factory=list)


def run_limits(cpu_s: float, wall_s: float, memory_mib: int, output_bytes: int) -> Limits:
    """The run-phase limits of a request, refused with their fix when one is not a limit."""
    from pipeline.programs import describe_error

    try:
        run = PhaseLimits(cpu_s=cpu_s, wall_s=wall_s, memory_mib=memory_mib, output_bytes=output_bytes)
    except ValidationError as error:
        raise ConfigurationError(
            f"bad run-phase limit: {describe_error(error)}", hint="limits are positive numbers"
        ) from None
    return Limits(run=run)


def execute_requests(
    store: Store,
    requests: list[RunRequest],
    batching: Batching,
    name: str | JobLabel,
    unsafe: bool = False,
    cost_s: Mapping[str, float] | None = None,
) -> RequestsOutcome:
    """Plan into the store's manifest and run what is not stored yet.

    ``requests`` carry their backend and toolchain identity (``sandboxes.identity.identify``). ``name`` is
    the command ("surge-run") or the ``flows.naming.JobLabel`` Prefect's UI shows for the job. ``cost_s``
    (run id -> expected seconds) sizes the batches by time, the longest started first.
    """
    from flows.naming import JobLabel
    from flows.runtime import default_workers
    from pipeline.batches import plan

    check_before_work({request.backend for request in requests}, batching, unsafe)
    stored = store.stored_run_ids([request.run_id for request in requests])
    todo = [request for request in requests if request.run_id not in stored]
    counts, failures = JobCounts(), list[tuple[str, str]]()
    if todo:
        workers = batching.workers or default_workers()
        plan_id, batches = plan(store, todo, batching.batch_size, workers, cost_s)
        job = name if isinstance(name, JobLabel) else JobLabel.of(name, todo)
        counts, failures = run_planned(store, plan_id, batches, unsafe, workers, batching.dask_address, job)
    return outcome_of(store, counts, failures, planned=len(requests), stored=len(requests) - len(todo))


def outcome_of(
    store: Store, counts: JobCounts, failures: list[tuple[str, str]], planned: int, stored: int
) -> RequestsOutcome:
    """A job's outcome: its counts, and every failure of ours with its fix (sandbox errors among them)."""
    from pipeline.store import old_run_id_rule_rows

    if counts.sandbox_errors:
        failures.append(
            (
                f"{counts.sandbox_errors} runs ended on a sandbox error (quarantined, never a verdict)",
                "run the same command again to retry them; `surge doctor` checks the sandbox",
            )
        )
    return RequestsOutcome(
        **counts.model_dump(),
        planned_runs=planned,
        already_stored=stored,
        old_rule_rows=old_run_id_rule_rows(store.runs.rows_by_schema_version()),
        failures=failures_of(failures),
    )


def execute_fed(
    store: Store, feed: Feed, backends: set[str], batching: Batching, label: JobLabel, unsafe: bool = False
) -> RequestsOutcome:
    """Run what ``feed`` gives, as it gives it, in one job (``flows.run_programs.run_feed``); the feed
    skips what the store holds. ``backends``: those its requests may name, checked before any work.

    Here (not on Dask), the feed's first batches run at once in the engine's head start while Prefect's
    API comes up (flows/head_start.py), as a planned job's do."""
    from flows.engine import using_engine
    from flows.run_programs import fed_slots, run_fed_job
    from flows.runtime import default_workers
    from pipeline.stealing import offer

    check_before_work(backends, batching, unsafe)
    workers = batching.workers or default_workers()
    dask_address = batching.dask_address
    threads = fed_slots(workers, dask_address)
    first = [] if dask_address else [b for _ in range(threads) if (b := feed.take()) is not None]
    first_plan = store.plan(first) if first else None
    early_ids = list(store.plan_batches(first_plan)) if first_plan else []
    for batch_id in early_ids:  # the flow may take what the head start's batches have not started
        offer(batch_id)
    with (
        using_engine() as engine,
        prompt_batch_threads(),
        engine.sandbox_slots(None if dask_address else workers),
        engine.feeding(feed) as feed_id,
        engine.head_start(store.root, first_plan or "", early_ids, unsafe, threads),
    ):
        engine.import_prefect()
        counts, failures = run_fed_job(
            engine, store.root, feed_id, unsafe, threads, dask_address, label, first_plan
        )
    found = JobCounts.model_validate(counts)
    return outcome_of(store, found, failures, planned=feed.planned, stored=feed.found_stored)


def check_before_work(backends: set[str], batching: Batching, unsafe: bool) -> None:
    """A bad flush setting, Dask address or missing sandbox is refused before any work, not by every
    batch."""
    from flows.runtime import check_dask_address
    from pipeline.batches import BatchFailed, flush_interval_s
    from sandboxes.backends.registry import check_available

    try:
        flush_interval_s()
    except BatchFailed as bad:
        raise ConfigurationError(bad.reason, hint=bad.fix) from None
    if batching.dask_address:
        check_dask_address(batching.dask_address)  # the workers' toolchains are checked where they run
    else:
        check_available(backends, unsafe)


def run_planned(
    store: Store,
    plan_id: str,
    batches: int,
    unsafe: bool,
    workers: int,
    dask_address: str | None,
    name: JobLabel,
) -> tuple[JobCounts, list[tuple[str, str]]]:
    """Run a plan under Prefect: (counts, failures). A head start runs batches, here or on the Dask
    cluster, while Prefect's API starts (flows/head_start.py); if the API never comes up, the batches it
    finished are real runs, stored and counted, and the API's failure is ours."""
    from flows.engine import using_engine
    from pipeline.errors import EngineUnavailable

    batch_ids = list(store.plan_batches(plan_id))
    # Here: one batch thread more than cores, ``workers`` of them running programs at a time (see
    # Engine.sandbox_slots). On Dask each worker thread is one batch.
    threads = workers if dask_address else workers + 1
    with (
        using_engine() as engine,
        prompt_batch_threads(),
        engine.sandbox_slots(None if dask_address else workers),
        engine.head_start(store.root, plan_id, batch_ids, unsafe, threads, dask_address) as early,
    ):
        engine.import_prefect()  # while the head start already runs
        from flows.run_programs import run_job

        try:
            counts, failures = run_job(
                engine, store.root, plan_id, batches, unsafe, threads, dask_address, name
            )
            return JobCounts.model_validate(counts), failures
        except EngineUnavailable as error:
            if early is None:
                raise  # nothing ran: refused before any work
            early.close()
            done, stored_batches = early.finished()
            found = JobCounts(**done.model_dump(), batches=batches, failed_batches=batches - stored_batches)
            return found, [(str(error), error.hint or "see `surge doctor`")]


@contextmanager
def prompt_batch_threads() -> Iterator[None]:
    """Hand the GIL to a batch's thread within half a millisecond, not five, while a plan runs.

    A batch thread mostly waits on its sandbox, and every wait ends in a GIL request; while the main
    thread runs Python (Prefect's import, the flow engine), the default hand-over kept the sandboxes idle:
    on 2 cores the gap between two programs of a batch was 33 ms during Prefect's import and 11 ms on
    average over a 1,000-program job; 26 ms and 8.7 ms with this (8.7 ms with no Prefect at all)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(BATCH_THREAD_SWITCH_S)
    try:
        yield
    finally:
        sys.setswitchinterval(before)
