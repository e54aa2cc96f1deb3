"""surge build: the build stage (pipeline/stages/build.py) from its flags, and each subset's line as text.

Exit codes (pipeline/cli.py's rule, the stage's figures): 1 when a failure of ours left items unbuilt,
each with its fix; 3 ("done, but") when a subset has fewer rows than ``--n`` for the items' own reasons
or the budget stopped it; the lines say which and why.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.build import failures
from pipeline.build.failures import Ours
from pipeline.build.spread import spread_line
from pipeline.commands.common import (
    add_backend_argument,
    add_endpoint_arguments,
    add_profile_argument,
    add_store_argument,
    add_workers_argument,
    batch_size,
    options_from,
    repeats_count,
    seed_number,
)
from pipeline.commands.display import Table
from pipeline.stages.build import BATCH_ITEMS, BesideRelease, BuildSummary, LLMTotals, SubsetBuild, build
from pipeline.stages.options import BuildOptions
from pipeline.subsets import REGISTRY, RELEASED

HELP = "build benchmark subsets (templates, LLM refactor, repositories, Lean-checked proofs) into the dataset"
EXAMPLE = "surge build sc tc --n 20 --seed 7 --store .surge/store --compare-to sources/samples/surge-released"
STAGE = build  # the stage this command calls
NO_BUDGET = "none"  # how a budget without a limit describes itself (pipeline/llm/budget.py)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    ours = " ".join(name for name in REGISTRY if name not in RELEASED)
    parser.add_argument(
        "subsets", nargs="*", help=f"subsets to build (default SURGE's: {' '.join(RELEASED)}; ours: {ours})"
    )
    add_store_argument(parser)
    parser.add_argument("--n", type=int, default=None, help="rows per subset (default: SURGE's Table 1 size)")
    parser.add_argument("--seed", type=seed_number, default=0, help="same seed, same instances, row for row")
    own = ", ".join(f"{n}: default means {s.build_profile}" for n, s in REGISTRY.items() if s.build_profile)
    add_profile_argument(parser, f"; build takes one ({own})")
    parser.add_argument(
        "--repeats",
        type=repeats_count,
        default=3,
        help="tc: most runs per instance for the CPU-time median (two, more only where those two differ "
        "by over 10%%; 1-100)",
    )
    parser.add_argument(
        "--templates",
        default="library",
        help="sc/tc/dr templates: 'library' (pipeline/templates) or SURGE's dataset/ folder (its scripts by "
        "fid, its dr programs)",
    )
    parser.add_argument(
        "--time-mix",
        default="surge",
        help="tc: the time bins to fill, as weights scaled to --n: 'surge' (SURGE's release per 150 rows: "
        "<0.1s=120,0.1-1s=0,1-10s=10,10-30s=10,>=30s=10) or e.g. '<0.1s=2,0.1-1s=1,1-10s=1,10-30s=1'",
    )
    parser.add_argument(
        "--compare-to",
        type=Path,
        default=None,
        metavar="DATASET",
        help="a folder of SURGE-format files (SURGE's dataset/): print each built subset's families, "
        "languages, time bins, label lengths and categories beside the release's",
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
    add_backend_argument(parser)
    parser.add_argument("--unsafe", action="store_true", help="allow running without bubblewrap")
    parser.add_argument(
        "--batch-size",
        type=batch_size,
        default=None,
        help=f"items per task, 1-1000 (one sandbox per batch; default: {BATCH_ITEMS}, or --n when smaller, "
        f"so that a small build plans only the items it needs; ml, cl, bg always {BATCH_ITEMS}: most "
        "refactored items are dropped, and the recorded responses cover a few items among the first)",
    )
    add_workers_argument(parser)
    add_llm_arguments(parser)


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """ml, cl, bg: the endpoint, as `surge refactor` and `surge predict` name it, and this run's budget."""
    llm = parser.add_argument_group(
        "LLM endpoint for ml, cl, bg (default: SURGE_LLM_* variables; none set: the recorded responses)"
    )
    add_endpoint_arguments(llm)
    llm.add_argument(
        "--budget",
        type=str,
        default=None,
        help="ml, cl, bg: stop asking past '$2.50' (needs prices) or '50ktokens' in this run (exit 3; a "
        "rerun resumes)",
    )


def options_of(args: argparse.Namespace) -> BuildOptions:
    return options_from(args, BuildOptions)


def render(summary: BuildSummary, options: BuildOptions) -> str:
    recorded = summary.recorded_llm
    lines = [recorded_notice(recorded)] if recorded else []
    lines += [_line(name, result) for name, result in summary.built.items()]
    lines += [f"{name}: not built: {why}" for name, why in summary.not_built.items()]
    if summary.compare_to:
        lines += ["", beside_text(summary.compare_to)]
    if summary.llm.requests or summary.llm.cache_hits:
        lines.append(_llm_line(summary.llm))
    return "\n".join(lines)


def screen(summary: BuildSummary, options: BuildOptions) -> list[str | Table]:
    """The subsets' lines as one table for a terminal, what they say beyond figures under it."""
    notice = [recorded_notice(summary.recorded_llm)] if summary.recorded_llm else []
    unbuilt = [f"{name}: not built: {why}" for name, why in summary.not_built.items()]
    blocks = _screen(summary.built, notice, unbuilt)
    return blocks + (["", beside_text(summary.compare_to)] if summary.compare_to else [])


def beside_text(compare_to: dict[str, BesideRelease]) -> str:
    """Each built subset beside the release's, as markdown tables (pipeline/export/compare.py)."""
    from pipeline.export.compare import table

    return "\n".join(
        line for name, sides in compare_to.items() for line in table(name, sides.model_dump(mode="json"))
    )


def recorded_notice(subsets: list[str]) -> str:
    return (
        f"{', '.join(subsets)}: no LLM endpoint is set, so the refactors use the recorded responses in "
        f"pipeline/build/recorded/ ({failures.recorded_fix()})"
    )


def _llm_line(llm: LLMTotals) -> str:
    text = (
        f"LLM: {llm.requests} requests ({llm.cache_hits} cache hits, {llm.retries} retries), "
        f"{llm.prompt_tokens} + {llm.completion_tokens} tokens, ${llm.cost_usd:.4f}"
    )
    if llm.budget != NO_BUDGET:
        text += f"; budget {llm.budget}"
    stopped = llm.budget_stopped_items
    if stopped:
        text += (
            f"\ndone, but the budget stopped it: {stopped} items not refactored (nothing recorded for "
            "them); run the same command again to resume (cached answers cost nothing)"
        )
    return text


def _line(name: str, result: SubsetBuild) -> str:
    text = f"{name}: {result.rows} rows from {result.kept_items} of {result.items} items"
    return text + "".join(joint + note for joint, note in _notes(name, result))


def _notes(name: str, result: SubsetBuild) -> list[tuple[str, str]]:
    """What a subset's line says beyond its figures, each with what joins it to the line before."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in result.drop_reasons.items())
    notes = []
    if result.planned_items > result.n:  # say why more items ran than rows were asked for
        why = (
            f", in whole batches of {result.batch_size} items: --batch-size"
            if REGISTRY[name].plans_whole_batches
            else ": later rounds made up for dropped items"
        )
        notes.append((" ", f"(planned {result.planned_items} for {result.n} rows{why})"))
    if reasons:
        notes.append(("; ", f"dropped: {reasons}"))
    if result.spread:
        notes.append(("\n", f"{name}: {spread_line({k: v.model_dump() for k, v in result.spread.items()})}"))
    if result.awaiting_review:
        notes.append(
            ("; ", f"{result.awaiting_review} awaiting review (surge review list --db <store>/review.db)")
        )
    if _skipped(result) and result.rows >= result.n:  # short of --n, it is a failure, printed as one
        notes.append(("; ", _recorded_reason(result)))  # how to set an endpoint: the notice above, once
    if result.rows < result.n:
        notes.append(("\n", f"{name}: built {result.rows} of {result.n} rows: {_shortfall(result)}"))
    return notes


def _screen(built: dict[str, SubsetBuild], notice: list[str], unbuilt: list[str]) -> list[str | Table]:
    """The subsets' lines as one table for a terminal, what they say beyond figures under it."""
    columns = ("subset", "rows", "of --n", "items kept", "items tried", "dropped")
    rows = [(name, r.rows, r.n, r.kept_items, r.items, r.dropped_items) for name, r in built.items()]
    notes = [
        note if note.startswith(f"{name}:") else f"{name}: {note}"
        for name, result in built.items()
        for _, note in _notes(name, result)
    ]
    table = Table(columns, rows, "subsets built", notes=notes + unbuilt)
    return [*notice, table] if built else [*notice, *table.notes]


def _skipped(result: SubsetBuild) -> int:
    """Items the recorded responses had no answer for (no endpoint set)."""
    return result.skipped


def _recorded_reason(result: SubsetBuild) -> str:
    return failures.recorded_reason(_skipped(result), result.planned_items)


def _shortfall(result: SubsetBuild) -> str:
    """Why a subset has fewer rows than --n, most decisive cause first."""
    from flows.build_subset import MAX_CANDIDATES_PER_ROW  # loaded already: the flow has run

    if result.budget_stopped:
        return "the budget stopped it (below); run again to resume"
    transient = [k for k in result.ours if Ours(k.removeprefix("ours:")).transient]
    if transient:
        return "a failure of ours stopped it (below); run again once fixed"
    why = []
    if _skipped(result):
        why.append(_recorded_reason(result))
    if result.ran_out:
        why.append(f"there are only {result.planned_items} items to build from")
    elif not why and not result.awaiting_review:
        why.append(
            f"it stopped after {result.planned_items} items ({MAX_CANDIDATES_PER_ROW} per row asked): "
            f"{result.dropped_items} dropped"
        )
    if result.awaiting_review:
        why.append(f"{result.awaiting_review} items await review")
    return "; ".join(why)
