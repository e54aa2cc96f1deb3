"""Arguments shared by several commands, defined once."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pipeline.batches import LARGEST_BATCH, SMALLEST_BATCH
from pipeline.bounds import (
    DEFAULT_STORE,
    MAX_BATCH_SIZE,
    MAX_COUNT,
    MAX_LIMIT_S,
    MAX_MEMORY_MIB,
    MAX_OUTPUT_BYTES,
    MAX_PORT,
    MAX_PRICE_USD,
    MAX_REPEATS,
    MAX_SEED,
    MAX_TIME_MARGIN,
    MAX_WORKERS,
)
from pipeline.records import Limits, PhaseLimits, RunRequest
from pipeline.stages.options import Options

if TYPE_CHECKING:
    from pipeline.store import Store

OptionsT = TypeVar("OptionsT", bound=Options)

# The documented range of every numeric flag is the stage's (pipeline/bounds.py): a number outside
# is refused while the flags are parsed (exit 2, one line naming the flag and the range).
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


def options_from(args: argparse.Namespace, model: type[OptionsT]) -> OptionsT:
    """A stage's options from the parsed flags: each field from the flag of its name."""
    return model.model_validate({name: getattr(args, name) for name in model.model_fields})


def limits_from_args(args: argparse.Namespace) -> Limits:
    """The run-phase limits of the parsed --cpu-s, --wall-s, --memory-mib and --output-bytes."""
    from pipeline.stages.batches import run_limits

    return run_limits(args.cpu_s, args.wall_s, args.memory_mib, args.output_bytes)


def execute_requests(
    store: Store,
    requests: list[RunRequest],
    args: argparse.Namespace,
    name: Any,
    unsafe: bool = False,
    cost_s: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The batch stage (pipeline/stages/batches.py) for a command that still hands it parsed flags (audit):
    its outcome as the JSON the command prints."""
    from pipeline.stages.batches import Batching
    from pipeline.stages.batches import execute_requests as run_requests

    batching = Batching(
        batch_size=args.batch_size, workers=args.workers, dask_address=getattr(args, "dask_address", None)
    )
    return run_requests(store, requests, batching, name, unsafe, cost_s).model_dump(mode="json")


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
