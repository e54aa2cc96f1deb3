"""surge build: regenerate SURGE's subsets from their sources (one Prefect flow per subset)."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.commands.common import (
    add_store_argument,
    batch_size,
    repeats_count,
    seed_number,
    workers_count,
)
from pipeline.errors import ConfigurationError
from pipeline.subsets import REGISTRY, RELEASED
from pipeline.subsets.base import ConstructionMethod

HELP = "build benchmark subsets (templates, LLM refactor, repositories, Lean-checked proofs) into the dataset"
EXAMPLE = "surge build sc tc --n 20 --seed 7 --store .surge/store"
NOT_BUILT_EXIT_CODE = 4
# Subsets this command can build today (pipeline/build); the others are reported, not faked.
BUILDABLE = {"sc", "tc", "dr", "ml", "cl", "bg", "rl", "fl"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    ours = " ".join(name for name in REGISTRY if name not in RELEASED)
    parser.add_argument(
        "subsets", nargs="*", help=f"subsets to build (default SURGE's: {' '.join(RELEASED)}; ours: {ours})"
    )
    add_store_argument(parser)
    parser.add_argument("--n", type=int, default=None, help="rows per subset (default: SURGE's Table 1 size)")
    parser.add_argument("--seed", type=seed_number, default=0, help="same seed, same instances, row for row")
    parser.add_argument(
        "--profile", default="default", help="environment profile (dr: default means surge-dr)"
    )
    parser.add_argument(
        "--repeats",
        type=repeats_count,
        default=3,
        help="tc: runs per instance for the CPU-time median (1-100)",
    )
    parser.add_argument(
        "--templates",
        default="library",
        help="sc/tc templates: 'library' (pipeline/templates) or SURGE's dataset/ folder (scripts by fid)",
    )
    parser.add_argument(
        "--items",
        default="samples",
        help="ml/cl/bg: 'samples' or a JSONL/store of pulled items; rl: 'samples' or a repository manifest",
    )
    parser.add_argument("--language", action="append", help="ml: only this language (repeatable)")
    parser.add_argument(
        "--auto-approve",
        action="store_true",
        help="approve runnable candidates unreviewed (recorded per row)",
    )
    parser.add_argument("--backend", default="bwrap", help="bwrap (default) or docker")
    parser.add_argument("--unsafe", action="store_true", help="allow running without bubblewrap")
    parser.add_argument(
        "--batch-size", type=batch_size, default=16, help="items per task, 1-1000 (one sandbox per batch)"
    )
    parser.add_argument(
        "--workers", type=workers_count, default=2, help="programs run concurrently in a sandbox (1-256)"
    )


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from flows.build_subset import run_build
    from pipeline.build.records import BuildConfig

    names = args.subsets or list(RELEASED)  # subsets of ours (pyver) only when named
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise ConfigurationError(f"unknown subset {unknown[0]!r}", hint=f"use some of: {', '.join(REGISTRY)}")
    built: dict[str, Any] = {}
    not_built: dict[str, str] = {}
    for name in names:
        spec = REGISTRY[name]
        if name not in BUILDABLE and spec.build_batch is None:
            not_built[name] = f"construction method {spec.construction.value} is not wired for {name} yet"
            continue
        if why := _missing_checker(spec):
            not_built[name] = why
            continue
        config = BuildConfig(
            subset=name,
            seed=args.seed,
            profile=args.profile,
            repeats=args.repeats,
            templates=args.templates,
            backend=args.backend,
            unsafe=args.unsafe,
            batch_size=args.batch_size,
            workers=args.workers,
            items=args.items,
            languages=tuple(args.language or ()),
            auto_approve=args.auto_approve,
        )
        built[name] = run_build(config, args.store, args.n or spec.release_size)
    failed = any(result.get("sandbox_errors") for result in built.values())
    lines = [_line(name, result) for name, result in built.items()]
    lines += [f"{name}: not built: {reason}" for name, reason in not_built.items()]
    return {
        "built": built,
        "not_built": not_built,
        "store": str(args.store),
        "exit_code": NOT_BUILT_EXIT_CODE if (not_built or failed) else 0,
        "_text": "\n".join(lines),
    }


def _missing_checker(spec: Any) -> str:
    """Why a verified subset (fl) cannot be built here, before any prover is asked ('' if it can)."""
    if spec.construction is not ConstructionMethod.INFERENCE_VERIFICATION:
        return ""
    from pipeline.build.prove import missing_checker

    why = missing_checker()
    return f"no Lean checker: {why}" if why else ""


def _line(name: str, result: dict[str, Any]) -> str:
    reasons = ", ".join(f"{reason} {count}" for reason, count in result.get("drop_reasons", {}).items())
    text = f"{name}: {result['rows']} rows from {result['kept_items']} of {result['items']} items"
    if reasons:
        text += f"; dropped: {reasons}"
    if result.get("awaiting_review"):
        text += f"; {result['awaiting_review']} awaiting review (surge review list --db <store>/review.db)"
    if result.get("sandbox_errors"):
        text += f"; {result['sandbox_errors']} sandbox errors (run again to retry them)"
    return text
