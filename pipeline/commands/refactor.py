"""surge refactor: the refactor stage (pipeline/stages/refactor.py) from its flags, and its work as text."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.bounds import MAX_ROUNDS
from pipeline.commands.common import (
    add_backend_argument,
    add_endpoint_arguments,
    add_workers_argument,
    batch_size,
    bounded_int,
    positive_int,
)
from pipeline.review import DEFAULT_REVIEW_DB
from pipeline.stages.options import RefactorOptions
from pipeline.stages.refactor import RefactorSummary, refactor

HELP = (
    "turn source items (JSONL or a store's items table) into programs with an LLM and queue them for review"
)
EXAMPLE = "surge refactor .surge/store --llm-model gpt-4o-mini --max-rounds 3 --limit 20"
STAGE = refactor  # the stage this command calls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "items", type=Path, help="JSONL of SourceItems, or a store folder with an items table"
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=DEFAULT_REVIEW_DB,
        help=f"review queue (default: {DEFAULT_REVIEW_DB}, the one `surge build` fills in the default store)",
    )
    parser.add_argument(
        "--source", action="append", default=None, help="only items of this source (repeatable)"
    )
    parser.add_argument("--method", default=None, help="force a method: mceval, leetcode, debugbench, ojcode")
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        help="at most N items, N >= 1 (after skipping queued ones)",
    )
    parser.add_argument(
        "--max-rounds",
        type=bounded_int(1, MAX_ROUNDS),
        default=3,
        help=f"LLM answers per item before it is failed (1-{MAX_ROUNDS})",
    )
    parser.add_argument(
        "--batch-size", type=batch_size, default=8, help="items per task, 1-1000 (one sandbox per batch)"
    )
    add_workers_argument(parser, default="--llm-concurrency, 4: each batch waits on one LLM request")
    add_backend_argument(parser)
    parser.add_argument("--unsafe", action="store_true", help="allow running candidates without a sandbox")
    llm = parser.add_argument_group("LLM endpoint (default: SURGE_LLM_* environment variables)")
    add_endpoint_arguments(llm)


def options_of(args: argparse.Namespace) -> RefactorOptions:
    return RefactorOptions.model_validate(
        {name: getattr(args, name) for name in RefactorOptions.model_fields}
    )


def render(summary: RefactorSummary, options: RefactorOptions) -> str:
    llm = summary.llm
    lines = [
        f"items read        {summary.items} ({summary.already_queued} already in the queue, skipped)",
        f"refactored        {summary.refactored}: {summary.candidates} candidates for review, "
        f"{summary.failed} failed (kept with the reason; a rerun retries them)",
        f"rounds per item   {summary.rounds_histogram}",
    ]
    if llm is not None:
        lines.append(
            f"LLM               {llm.requests} requests ({llm.cache_hits} cache hits, "
            f"{llm.retries} retries), {llm.prompt_tokens} + "
            f"{llm.completion_tokens} tokens, ${llm.cost_usd:.4f}"
        )
    if summary.failed_batches:
        lines.append(
            f"failed batches    {len(summary.failed_batches)} (rerun to retry): {summary.failed_batches[0]}"
        )
    if summary.bad_lines:
        lines.append(f"bad lines         {summary.bad_lines} (skipped)")
    lines.append(f"review with       surge review list --db {summary.db}  (or: surge review serve)")
    return "\n".join(lines)
