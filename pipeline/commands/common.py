"""Arguments shared by several commands, defined once."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.batches import LARGEST_BATCH, SMALLEST_BATCH
from pipeline.records import Limits, PhaseLimits, RunRequest

if TYPE_CHECKING:
    from pipeline.store import Store

DEFAULT_STORE = Path(".surge/store")
# The backends a user may name; running without a sandbox is `--unsafe`, never a backend name.
BACKEND_CHOICES = ("bwrap", "docker")


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1 (``--repeats 0`` is refused with the reason, not a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", type=Path, default=DEFAULT_STORE, help=f"Parquet store folder (default: {DEFAULT_STORE})"
    )


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=BACKEND_CHOICES,
        default="bwrap",
        help="sandbox for profiles that use this machine's toolchains (default: bwrap); profiles whose "
        "toolchains live in images always run in Docker",
    )


def add_dask_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dask-address",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run the batches on this Dask scheduler's workers (store on a shared path; docs/scale-out.md)",
    )


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        help="programs per task, one sandbox per batch (default: automatic, large batches first and down "
        f"to {SMALLEST_BATCH} at the end, at most {LARGEST_BATCH})",
    )
    parser.add_argument(
        "--workers", type=positive_int, default=None, help="batches in parallel (default: CPU cores)"
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    run = PhaseLimits()
    group = parser.add_argument_group("run-phase limits")
    group.add_argument("--cpu-s", type=float, default=run.cpu_s, help="CPU seconds")
    group.add_argument("--wall-s", type=float, default=run.wall_s, help="wall-clock seconds")
    group.add_argument("--memory-mib", type=int, default=run.memory_mib, help="memory, MiB")
    group.add_argument("--output-bytes", type=int, default=run.output_bytes, help="bytes kept per stream")


def limits_from_args(args: argparse.Namespace) -> Limits:
    from pydantic import ValidationError

    from pipeline.errors import ConfigurationError
    from pipeline.programs import describe_error

    try:
        run = PhaseLimits(
            cpu_s=args.cpu_s, wall_s=args.wall_s, memory_mib=args.memory_mib, output_bytes=args.output_bytes
        )
    except ValidationError as error:
        raise ConfigurationError(
            f"bad run-phase limit: {describe_error(error)}", hint="limits are positive numbers"
        ) from None
    return Limits(run=run)


def failures_of(pairs: list[tuple[str, str]]) -> list[dict[str, str]]:
    """(reason, fix) pairs as the CLI's ``failures`` list."""
    return [{"reason": reason, "fix": fix} for reason, fix in pairs]


def execute_requests(
    store: Store, requests: list[RunRequest], args: argparse.Namespace, name: str, unsafe: bool = False
) -> dict[str, Any]:
    """Plan into the store's manifest and run what is not stored yet (shared by run and audit).

    ``requests`` carry their backend and toolchain identity (``sandboxes.identity.identify``). Returns the
    counts and ``failures`` (what of ours failed, each with its fix) for the CLI's exit rule.
    """
    from flows.runtime import check_dask_address, default_workers
    from pipeline.batches import plan
    from pipeline.store import old_run_id_rule_rows
    from sandboxes.identity import check_available

    if getattr(args, "dask_address", None):
        check_dask_address(args.dask_address)  # the workers' toolchains are checked where they run
    else:
        check_available({request.backend for request in requests})
    stored = store.stored_run_ids([request.run_id for request in requests])
    todo = [request for request in requests if request.run_id not in stored]
    counts: dict[str, Any] = {"written": 0, "sandbox_errors": 0, "batches": 0, "failed_batches": 0}
    failures: list[tuple[str, str]] = []
    if todo:
        workers = args.workers or default_workers()
        dask_address = getattr(args, "dask_address", None)
        plan_id, batches = plan(store, todo, args.batch_size, workers)
        counts, failures = run_planned(store, plan_id, batches, unsafe, workers, dask_address, name)
    if counts.get("sandbox_errors"):
        failures.append(
            (
                f"{counts['sandbox_errors']} runs ended on a sandbox error (quarantined, never a verdict)",
                "run the same command again to retry them; `surge doctor` checks the sandbox",
            )
        )
    old_rule = old_run_id_rule_rows(store.runs.rows_by_schema_version())
    return {
        "planned_runs": len(requests),
        "already_stored": len(requests) - len(todo),
        "verdicts": {},
        **counts,
        "old_rule_rows": old_rule,
        "failures": failures_of(failures),
    }


def run_planned(
    store: Store, plan_id: str, batches: int, unsafe: bool, workers: int, dask_address: str | None, name: str
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Run a plan under Prefect: (counts, failures). A head start runs batches, here or on the Dask
    cluster, while Prefect's API starts (flows/head_start.py); if the API never comes up, the batches it
    finished are real runs, stored and counted, and the API's failure is ours."""
    from flows.head_start import head_start
    from pipeline.batches import sandbox_slots
    from pipeline.errors import EngineUnavailable

    batch_ids = list(store.plan_batches(plan_id))
    # Here: one batch thread more than cores, ``workers`` of them running programs at a time (see
    # sandbox_slots). On Dask each worker thread is one batch.
    threads = workers if dask_address else workers + 1
    with (
        prompt_batch_threads(),
        sandbox_slots(workers) if not dask_address else nullcontext(),
        head_start(store.root, plan_id, batch_ids, unsafe, threads, dask_address) as early,
    ):
        from flows.run_programs import run_job  # imports Prefect, while the head start already runs

        try:
            return run_job(store.root, plan_id, batches, unsafe, threads, dask_address, name)
        except EngineUnavailable as error:
            if early is None:
                raise  # nothing ran: refused before any work
            early.close()
            done, stored_batches = early.finished()
            counts = {**done.model_dump(), "batches": batches, "failed_batches": batches - stored_batches}
            return counts, [(str(error), error.hint or "see `surge doctor`")]


# The GIL hand-over while batches run in this process's threads (Python's default is 5 ms).
BATCH_THREAD_SWITCH_S = 0.0005


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


def old_rule_note(rows: int) -> str:
    return (
        f"note: {rows} stored rows carry run ids of the old rule (program, setting and profile only): they "
        "stay readable, but no new run id matches them, so their programs run again when asked for"
    )
