"""surge refactor: turn source items into runnable, leak-free programs with an LLM, for human review."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import (
    DEFAULT_REVIEW_DB,
    add_backend_argument,
    add_endpoint_arguments,
    add_workers_argument,
    batch_size,
    bounded_int,
    positive_int,
)

HELP = (
    "turn source items (JSONL or a store's items table) into programs with an LLM and queue them for review"
)
EXAMPLE = "surge refactor .surge/store --llm-model gpt-4o-mini --max-rounds 3 --limit 20"
MAX_ROUNDS = 20


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


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.llm import LLMSettings
    from pipeline.refactor.items import load_items
    from pipeline.refactor.methods import method_for
    from pipeline.review.queue import ReviewQueue

    settings = LLMSettings.from_env(
        base_url=args.llm_base_url,
        model=args.llm_model,
        api_key=args.llm_api_key,
        concurrency=args.llm_concurrency,
        cache_dir=args.llm_cache,
        price_prompt_per_1k=args.price_prompt_per_1k,
        price_completion_per_1k=args.price_completion_per_1k,
    )
    settings.require_endpoint()
    items, bad_lines = load_items(args.items)
    if args.source:
        wanted = set(args.source)
        items = [item for item in items if item.source in wanted]
    for item in items[:1]:
        method_for(item, args.method)  # fail fast on an unknown source, before any request
    done = ReviewQueue(args.db).done_item_ids()
    fresh = [item for item in items if item.item_id not in done]
    todo = fresh[: args.limit]
    outcome: dict[str, Any] = {
        "candidates": 0,
        "failed": 0,
        "rounds_histogram": {},
        "failed_batches": [],
        "llm": {},
    }
    if todo:
        from flows.refactor_items import refactor_flow

        outcome = refactor_flow(
            todo,
            args.db,
            settings,
            args.backend,
            args.unsafe,
            args.batch_size,
            args.workers or settings.concurrency,  # each batch waits on the LLM: one worker per request slot
            args.max_rounds,
            args.method,
        )
    summary = {
        "items": len(items),
        "bad_lines": len(bad_lines),
        "already_queued": len(items) - len(fresh),
        "refactored": len(todo),
        **outcome,
        "db": str(args.db),
        # the CLI's rule: failures of ours -> one line each with the fix, exit 1
        "failures": [
            {"reason": f"a refactor batch failed: {reason}", "fix": "run again: its items are retried"}
            for reason in dict.fromkeys(outcome["failed_batches"])
        ],
    }
    summary["_text"] = render(summary)
    return summary


def render(summary: dict[str, Any]) -> str:
    llm = summary["llm"] or {}
    lines = [
        f"items read        {summary['items']} ({summary['already_queued']} already in the queue, skipped)",
        f"refactored        {summary['refactored']}: {summary['candidates']} candidates for review, "
        f"{summary['failed']} failed (kept with the reason; a rerun retries them)",
        f"rounds per item   {summary['rounds_histogram']}",
    ]
    if llm:
        lines.append(
            f"LLM               {llm.get('requests', 0)} requests ({llm.get('cache_hits', 0)} cache hits, "
            f"{llm.get('retries', 0)} retries), {llm.get('prompt_tokens', 0)} + "
            f"{llm.get('completion_tokens', 0)} tokens, ${llm.get('cost_usd', 0):.4f}"
        )
    if summary["failed_batches"]:
        lines.append(
            f"failed batches    {len(summary['failed_batches'])} (rerun to retry): "
            f"{summary['failed_batches'][0]}"
        )
    if summary["bad_lines"]:
        lines.append(f"bad lines         {summary['bad_lines']} (skipped)")
    lines.append(f"review with       surge review list --db {summary['db']}  (or: surge review serve)")
    return "\n".join(lines)
