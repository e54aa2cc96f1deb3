"""surge predict: the predict stage (pipeline/stages/predict.py) from its flags, and what it asked as text."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.commands.common import options_from, positive_int, workers_count
from pipeline.scoring.predict import PROMPT_FIELDS
from pipeline.stages.options import PredictOptions
from pipeline.stages.predict import PredictSummary, predict
from pipeline.subsets import SUBSET_NAMES

HELP = "ask an OpenAI-compatible model each record's SURGE prompt and write predictions for `surge score`"
EXAMPLE = (
    "surge predict out/dataset --model gpt-4o-mini --subset ml --prompt cot --output ml-cot.jsonl --limit 20"
)
STAGE = predict  # the stage this command calls


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


def options_of(args: argparse.Namespace) -> PredictOptions:
    return options_from(args, PredictOptions)


def render(summary: PredictSummary, options: PredictOptions) -> str:
    head = (
        f"{summary.output}: {summary.written} new predictions of {summary.model} ({summary.prompt}), "
        f"{summary.already_done} already there, {summary.records} records; "
        f"{summary.prompt_tokens} + {summary.completion_tokens} tokens, ${summary.cost_usd:.4f}"
    )
    if summary.truncated or summary.prompt_too_long:
        head += (
            f"\nthe model's own failures, kept as its answers: {summary.truncated} cut at max_tokens, "
            f"{summary.prompt_too_long} prompts longer than its context"
        )
    if summary.stopped_by_budget:
        left = summary.to_ask - summary.asked
        head += f"\ndone, but the budget stopped it: {summary.asked} asked, {left} not asked; rerun to resume"
    elif not summary.failures:
        head += f"\nnext: surge score {summary.output} --dataset {summary.dataset}"
    return head
