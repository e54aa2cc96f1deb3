"""Arguments shared by several commands, defined once."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.records import Limits, PhaseLimits

DEFAULT_STORE = Path(".surge/store")


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", type=Path, default=DEFAULT_STORE, help=f"Parquet store folder (default: {DEFAULT_STORE})"
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    run = PhaseLimits()
    group = parser.add_argument_group("run-phase limits")
    group.add_argument("--cpu-s", type=float, default=run.cpu_s, help="CPU seconds")
    group.add_argument("--wall-s", type=float, default=run.wall_s, help="wall-clock seconds")
    group.add_argument("--memory-mib", type=int, default=run.memory_mib, help="memory, MiB")
    group.add_argument("--output-bytes", type=int, default=run.output_bytes, help="bytes kept per stream")


def limits_from_args(args: argparse.Namespace) -> Limits:
    run = PhaseLimits(
        cpu_s=args.cpu_s, wall_s=args.wall_s, memory_mib=args.memory_mib, output_bytes=args.output_bytes
    )
    return Limits(run=run)
