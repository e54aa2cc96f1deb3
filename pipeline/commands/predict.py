"""surge predict: ask a model each record's prompt; write predictions that `surge score` reads as they are."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import positive_int, workers_count
from pipeline.errors import ConfigurationError, InputError
from pipeline.llm.budget import Budget, parse_budget, require_prices
from pipeline.scoring.predict import PROMPT_FIELDS, RunTotals, finished_ids, predict
from pipeline.scoring.predictions import read_dataset
from pipeline.subsets import SUBSET_NAMES
from sources.surge_release import ReleasedRecord

HELP = "ask an OpenAI-compatible model each record's SURGE prompt and write predictions for `surge score`"
EXAMPLE = (
    "surge predict out/dataset --model gpt-4o-mini --subset ml --prompt cot --output ml-cot.jsonl --limit 20"
)
BUDGET_EXIT_CODE = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dataset", type=Path, help="a dataset/ folder (as `surge export` writes) or <subset>.json"
    )
    parser.add_argument(
        "--model", "--llm-model", dest="model", default=None, help="model name (default: SURGE_LLM_MODEL)"
    )
    parser.add_argument(
        "--subset",
        action="append",
        choices=SUBSET_NAMES,
        default=None,
        help="only this subset (repeatable)",
    )
    parser.add_argument(
        "--prompt",
        choices=sorted(PROMPT_FIELDS),
        default="zero-shot",
        help="zero-shot (sys_0shot), few-shot (sys_3shot) or cot (sys_cot), as the dataset holds them",
    )
    parser.add_argument(
        "--output", type=Path, default=Path("predictions.jsonl"), help="JSONL, appended; a rerun resumes it"
    )
    parser.add_argument(
        "--concurrency",
        "--llm-concurrency",
        dest="concurrency",
        type=workers_count,
        default=None,
        help="requests in flight, 1-256 (default 4)",
    )
    parser.add_argument(
        "--budget", type=str, default=None, help="stop asking past '$2.50' (needs prices) or '50ktokens'"
    )
    parser.add_argument("--limit", type=positive_int, default=None, help="ask at most this many new items")
    parser.add_argument(
        "--llm-base-url", default=None, help="OpenAI-compatible base URL (default: SURGE_LLM_BASE_URL)"
    )


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.llm import LLMClient, LLMSettings

    budget = parse_budget(args.budget) if args.budget is not None else Budget()
    # The predictions file is the record of what was asked: a response cache would answer a rerun from
    # disk and hide a model's own variation, so predict always asks the endpoint.
    settings = LLMSettings.from_env(
        base_url=args.llm_base_url, model=args.model, concurrency=args.concurrency
    )
    settings = settings.model_copy(update={"cache_dir": None})
    settings.require_endpoint()
    require_prices(budget, bool(settings.price_prompt_per_1k or settings.price_completion_per_1k))
    records = dataset_records(args.dataset, set(args.subset) if args.subset else None)
    writable(args.output)
    done = finished_ids(args.output, settings.model, args.prompt)
    todo = [record for record in records if record.item_id not in done]
    if args.limit is not None:
        todo = todo[: args.limit]
    with LLMClient(settings) as client:
        totals = predict(client, todo, args.prompt, args.output, budget)
    return summary_of(args, settings.model, len(records), len(done), len(todo), totals)


def writable(path: Path) -> None:
    """Refuse an output that cannot take a line before asking anything (a folder, a read-only place)."""
    if path.exists() and not path.is_file():  # a device or pipe: read back to resume, it may never end
        raise ConfigurationError(f"{path} is not a regular file", hint="pick a file for --output")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise ConfigurationError(
            f"cannot write {path}: {error.strerror or error}", hint="pick a writable --output file"
        ) from None


def dataset_records(path: Path, subsets: set[str] | None) -> list[ReleasedRecord]:
    records = read_dataset(path, subsets)
    if not records:
        raise InputError(
            f"{path} holds no records{' of ' + ', '.join(sorted(subsets)) if subsets else ''}",
            hint="point at a dataset/ folder written by `surge export`",
        )
    return records


def summary_of(
    args: argparse.Namespace, model: str, records: int, resumed: int, todo: int, totals: RunTotals
) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "output": str(args.output),
        "dataset": str(args.dataset),
        "model": model,
        "prompt": args.prompt,
        "records": records,
        "already_done": resumed,
        "to_ask": todo,
        **totals.model_dump(exclude={"failure", "failure_fix", "stopped_by_budget", "output_broken"}),
        "cost_usd": round(totals.cost_usd, 6),
        "stopped_by_budget": totals.stopped_by_budget,
    }
    if totals.failure is not None:
        summary["failures"] = [
            {"reason": f"the endpoint failed: {totals.failure}", "fix": totals.failure_fix}
        ]
    elif totals.stopped_by_budget:
        summary["exit_code"] = BUDGET_EXIT_CODE
    summary["_text"] = render(summary, totals)
    return summary


def render(summary: dict[str, Any], totals: RunTotals) -> str:
    head = (
        f"{summary['output']}: {totals.written} new predictions of {summary['model']} ({summary['prompt']}), "
        f"{summary['already_done']} already there, {summary['records']} records; "
        f"{totals.prompt_tokens} + {totals.completion_tokens} tokens, ${totals.cost_usd:.4f}"
    )
    if totals.truncated or totals.prompt_too_long:
        head += (
            f"\nthe model's own failures, kept as its answers: {totals.truncated} cut at max_tokens, "
            f"{totals.prompt_too_long} prompts longer than its context"
        )
    if totals.stopped_by_budget:
        left = summary["to_ask"] - totals.asked
        head += f"\ndone, but the budget stopped it: {totals.asked} asked, {left} not asked; rerun to resume"
    elif totals.failure is None:
        head += f"\nnext: surge score {summary['output']} --dataset {summary['dataset']}"
    return head
