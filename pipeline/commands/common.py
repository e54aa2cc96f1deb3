"""Arguments shared by several commands, defined once."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.batches import LARGEST_BATCH, SMALLEST_BATCH
from pipeline.records import Limits, PhaseLimits, RunRequest
from pipeline.review import queue_of

if TYPE_CHECKING:
    from pipeline.store import Store

DEFAULT_STORE = Path(".surge/store")
DEFAULT_REVIEW_DB = queue_of(DEFAULT_STORE)  # where `surge build` leaves candidates for review by default


# The documented range of every numeric flag. A number outside is refused while the flags are parsed (exit 2,
# one line naming the flag and the range), never carried into the work: `--wall-s 1e12` once overflowed a
# thread wait mid-batch, `--cpu-s inf` reached the sandbox as a limit it could not set.
MAX_LIMIT_S = 86_400.0  # one day of CPU or wall time per phase
MAX_MEMORY_MIB = 1 << 20  # 1 TiB
MAX_OUTPUT_BYTES = 1 << 30  # 1 GiB kept per stream
MAX_REPEATS = 100
MAX_WORKERS = 256
MAX_BATCH_SIZE = 1_000
MAX_COUNT = 10_000_000  # --limit and the like: items, records
MAX_SEED = (1 << 63) - 1  # stored as a signed 64-bit integer
MAX_PORT = 65_535
MAX_PRICE_USD = 1_000.0
MAX_TIME_MARGIN = 100.0
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_.~-]{16,256}$")  # URL-safe: it travels in ?token=


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """argparse type: a whole number in [low, high] (``--repeats 0`` is refused with the range)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number ({low}-{high})") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}, not {value}")
        return value

    parse.__name__ = f"whole number {low}-{high}"
    return parse


def bounded_float(low: float, high: float, low_included: bool = False) -> Callable[[str], float]:
    """argparse type: a finite number in (low, high] ([low, high] with ``low_included``); inf and nan are
    refused, as are numbers no limit can hold."""
    shown = f"{'[' if low_included else '('}{low:g}, {high:g}]"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number in {shown}") from None
        above_low = value >= low if low_included else value > low
        if not math.isfinite(value) or not above_low or value > high:
            raise argparse.ArgumentTypeError(f"must be a finite number in {shown}, not {text}")
        return value

    parse.__name__ = f"number in {shown}"
    return parse


positive_int = bounded_int(1, MAX_COUNT)
repeats_count = bounded_int(1, MAX_REPEATS)
workers_count = bounded_int(1, MAX_WORKERS)
batch_size = bounded_int(1, MAX_BATCH_SIZE)
seed_number = bounded_int(0, MAX_SEED)
port_number = bounded_int(0, MAX_PORT)
limit_seconds = bounded_float(0.0, MAX_LIMIT_S)
price_usd = bounded_float(0.0, MAX_PRICE_USD, low_included=True)
time_margin = bounded_float(1.0, MAX_TIME_MARGIN, low_included=True)


def access_token(text: str) -> str:
    """argparse type: a token a URL carries unchanged, long enough not to be guessed."""
    if not TOKEN_PATTERN.match(text):
        raise argparse.ArgumentTypeError("must be 16-256 characters of A-Z a-z 0-9 _ . ~ -")
    return text


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", type=Path, default=DEFAULT_STORE, help=f"Parquet store folder (default: {DEFAULT_STORE})"
    )


def backend_name(text: str) -> str:
    """argparse type: a backend, with the old spellings read as today's (`auto`, audit's old default)."""
    from sandboxes.backends.registry import OLD_NAMES

    return OLD_NAMES.get(text, text)


def backend_choices() -> tuple[str, ...]:
    """The backends a user may name, for every command that takes --backend: the registry's, read when
    the parser is built (a backend registered before is a choice). Running without a sandbox is
    `--unsafe`, never a backend name."""
    from sandboxes.backends.registry import names

    return names()


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    """The one --backend: the same choices and meaning in every command that runs programs."""
    from sandboxes.backends.registry import DEFAULT_BACKEND

    parser.add_argument(
        "--backend",
        type=backend_name,
        choices=backend_choices(),
        default=DEFAULT_BACKEND,
        help=f"sandbox for profiles that use this machine's toolchains (default: {DEFAULT_BACKEND}); "
        "profiles whose toolchains live in images always run in Docker",
    )


def add_workers_argument(
    parser: argparse.ArgumentParser, unit: str = "programs run", default: str = "CPU cores"
) -> None:
    """The one --workers: how many programs run at the same time (run, audit and refactor: that many
    one-program-at-a-time batches in parallel; build: one batch at a time whose sandbox runs that many);
    for `pull`, sources pulled. Never the concurrency of something else (refactor's LLM requests have
    their own flag, --llm-concurrency)."""
    parser.add_argument(
        "--workers",
        type=workers_count,
        default=None,
        help=f"{unit} at the same time, 1-{MAX_WORKERS} (default: {default})",
    )


def one_profile(names: list[str] | None, command: str) -> str:
    """The single profile of a command that takes one (--profile is repeatable wherever programs run under
    several): more than one is refused, never silently cut to the first."""
    names = names or ["default"]
    if len(names) > 1:
        from pipeline.errors import ConfigurationError

        raise ConfigurationError(
            f"`surge {command}` takes one --profile, not {len(names)} ({', '.join(names)})",
            hint=f"run `surge {command}` once per profile",
        )
    return names[0]


def add_profile_argument(parser: argparse.ArgumentParser, note: str = "") -> None:
    """The one --profile: an environment profile, repeatable (each profile runs every program)."""
    parser.add_argument(
        "--profile",
        action="append",
        default=None,
        metavar="NAME",
        help=f"environment profile, repeatable (default: default){note}",
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
        type=batch_size,
        default=None,
        help=f"programs per task (1-{MAX_BATCH_SIZE}), one sandbox per batch (default: automatic, large "
        f"batches first and down to {SMALLEST_BATCH} at the end, at most {LARGEST_BATCH})",
    )
    add_workers_argument(parser)


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    run = PhaseLimits()
    group = parser.add_argument_group("run-phase limits")
    day = f"(0, {MAX_LIMIT_S:g}]"
    group.add_argument("--cpu-s", type=limit_seconds, default=run.cpu_s, help=f"CPU seconds {day}")
    group.add_argument("--wall-s", type=limit_seconds, default=run.wall_s, help=f"wall-clock seconds {day}")
    group.add_argument(
        "--memory-mib",
        type=bounded_int(1, MAX_MEMORY_MIB),
        default=run.memory_mib,
        help=f"memory, MiB (1-{MAX_MEMORY_MIB})",
    )
    group.add_argument(
        "--output-bytes",
        type=bounded_int(1, MAX_OUTPUT_BYTES),
        default=run.output_bytes,
        help=f"bytes kept per stream (1-{MAX_OUTPUT_BYTES})",
    )


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
    store: Store,
    requests: list[RunRequest],
    args: argparse.Namespace,
    name: Any,
    unsafe: bool = False,
    cost_s: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Plan into the store's manifest and run what is not stored yet (shared by run and audit).

    ``requests`` carry their backend and toolchain identity (``sandboxes.identity.identify``). ``name`` is
    the command ("surge-run") or the ``flows.naming.JobLabel`` Prefect's UI shows for the job. ``cost_s``
    (run id -> expected seconds) sizes the batches by time, the longest started first. Returns the
    counts and ``failures`` (what of ours failed, each with its fix) for the CLI's exit rule.
    """
    from flows.naming import JobLabel
    from flows.runtime import check_dask_address, default_workers
    from pipeline.batches import BatchFailed, flush_interval_s, plan
    from pipeline.errors import ConfigurationError
    from pipeline.store import old_run_id_rule_rows
    from sandboxes.backends.registry import check_available

    try:
        flush_interval_s()  # a bad setting is refused before any work, not by every batch
    except BatchFailed as bad:
        raise ConfigurationError(bad.reason, hint=bad.fix) from None
    if getattr(args, "dask_address", None):
        check_dask_address(args.dask_address)  # the workers' toolchains are checked where they run
    else:
        check_available({request.backend for request in requests}, unsafe)
    stored = store.stored_run_ids([request.run_id for request in requests])
    todo = [request for request in requests if request.run_id not in stored]
    counts: dict[str, Any] = {"written": 0, "sandbox_errors": 0, "batches": 0, "failed_batches": 0}
    failures: list[tuple[str, str]] = []
    if todo:
        workers = args.workers or default_workers()
        dask_address = getattr(args, "dask_address", None)
        plan_id, batches = plan(store, todo, args.batch_size, workers, cost_s)
        job = name if isinstance(name, JobLabel) else JobLabel.of(name, todo)
        counts, failures = run_planned(store, plan_id, batches, unsafe, workers, dask_address, job)
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
    store: Store, plan_id: str, batches: int, unsafe: bool, workers: int, dask_address: str | None, name: Any
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
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
            return run_job(engine, store.root, plan_id, batches, unsafe, threads, dask_address, name)
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


def add_endpoint_arguments(llm: argparse._ActionsContainer) -> None:
    """An OpenAI-compatible endpoint's flags, one meaning wherever they appear (refactor, build): its URL,
    model, key, requests in flight, response cache and prices. ``llm`` is a parser or an argument group."""
    llm.add_argument(
        "--llm-base-url", default=None, help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1"
    )
    llm.add_argument("--model", "--llm-model", dest="llm_model", default=None, help="model name")
    llm.add_argument(
        "--llm-api-key", default=None, help="API key (prefer SURGE_LLM_API_KEY: flags show in ps)"
    )
    llm.add_argument(
        "--llm-concurrency", type=workers_count, default=None, help="requests in flight, 1-256 (default 4)"
    )
    llm.add_argument(
        "--llm-cache", type=Path, default=None, help="response cache folder (default .surge/llm-cache)"
    )
    prices = f"[0, {MAX_PRICE_USD:g}]"
    llm.add_argument(
        "--price-prompt-per-1k", type=price_usd, default=None, help=f"USD per 1k prompt tokens {prices}"
    )
    llm.add_argument(
        "--price-completion-per-1k",
        type=price_usd,
        default=None,
        help=f"USD per 1k completion tokens {prices}",
    )
