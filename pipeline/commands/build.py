"""surge build: regenerate SURGE's subsets from their sources (one Prefect flow per subset).

Exit codes (pipeline/cli.py's rule): 1 when a failure of ours left items unbuilt (a missing toolchain or
image, a broken sandbox, an LLM endpoint that failed, or none set and no recorded response: each with
its fix; nothing is recorded for those items and the next run builds them in their place); 3 ("done,
but") when a subset has fewer rows than ``--n`` for the items' own reasons (the items ran out, too many
were dropped, some await review), each with by how much and why; 4 when a subset was not built at all.
"""

from __future__ import annotations

import argparse
import uuid
from pathlib import Path
from typing import Any

from pipeline.build import failures
from pipeline.build.failures import Ours
from pipeline.build.spread import mix_text, parse_mix, spread_line
from pipeline.commands.common import (
    add_backend_argument,
    add_endpoint_arguments,
    add_profile_argument,
    add_store_argument,
    add_workers_argument,
    batch_size,
    one_profile,
    repeats_count,
    seed_number,
)
from pipeline.commands.display import Table
from pipeline.errors import ConfigurationError
from pipeline.subsets import REGISTRY, RELEASED
from pipeline.subsets.base import ConstructionMethod

HELP = "build benchmark subsets (templates, LLM refactor, repositories, Lean-checked proofs) into the dataset"
EXAMPLE = "surge build sc tc --n 20 --seed 7 --store .surge/store --compare-to sources/samples/surge-released"
BATCH_ITEMS = 16  # items per batch when --batch-size is not given
SHORT_EXIT_CODE = 3  # "done, but": every item was decided, yet fewer rows than --n


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


def llm_of(args: argparse.Namespace) -> tuple[Any, Any]:
    """(the endpoint's settings, the run's budget), from the flags over SURGE_LLM_*; half an endpoint
    (a URL and no model, or the reverse) is refused rather than silently answered from recordings."""
    from pipeline.llm.budget import Budget, parse_budget, require_prices
    from pipeline.llm.settings import LLMSettings

    settings = LLMSettings.from_env(
        base_url=args.llm_base_url,
        model=args.llm_model,
        api_key=args.llm_api_key,
        concurrency=args.llm_concurrency,
        cache_dir=args.llm_cache,
        price_prompt_per_1k=args.price_prompt_per_1k,
        price_completion_per_1k=args.price_completion_per_1k,
    )
    if bool(settings.base_url) != bool(settings.model):
        missing = (
            "--model (or SURGE_LLM_MODEL)" if settings.base_url else "--llm-base-url (or SURGE_LLM_BASE_URL)"
        )
        raise ConfigurationError(
            f"half an LLM endpoint: {missing} is not set",
            hint=f"give {missing} too, or neither for the recorded responses",
        )
    budget = parse_budget(args.budget) if args.budget is not None else Budget()
    require_prices(budget, bool(settings.price_prompt_per_1k or settings.price_completion_per_1k))
    return settings, budget


def _profile_and_backend(args: argparse.Namespace) -> tuple[str, str]:
    """The one profile a build runs under, and its backend as --backend means everywhere: a profile whose
    toolchains live in an image runs in Docker."""
    from sandboxes.backends.registry import backend_for
    from sandboxes.profiles import get_profile

    profile = one_profile(args.profile, "build")
    return profile, backend_for(get_profile(profile), args.backend)


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from flows.build_subset import run_build
    from flows.runtime import default_workers
    from pipeline.build.records import BuildConfig

    _check_counts(args)
    mix = mix_text(parse_mix(args.time_mix))  # refused before any work when it does not parse
    settings, budget = llm_of(args)
    llm_run = uuid.uuid4().hex  # the run a budget is counted over (pipeline/build/spend.py)
    profile, backend = _profile_and_backend(args)
    names = args.subsets or list(RELEASED)  # subsets of ours (pyver) only when named
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise ConfigurationError(f"unknown subset {unknown[0]!r}", hint=f"use some of: {', '.join(REGISTRY)}")
    from sandboxes.backends.registry import check_available

    check_available({backend}, args.unsafe)  # no sandbox at all: refused before any item is tried
    built: dict[str, Any] = {}
    cannot: dict[str, tuple[str, str]] = {}  # a subset we cannot build here is ours: exit 1, its fix
    for name in names:
        spec = REGISTRY[name]
        if why_and_fix := _unbuildable(name, spec):
            cannot[name] = why_and_fix
            continue
        n = args.n if args.n is not None else spec.release_size
        config = BuildConfig(
            subset=name,
            seed=args.seed,
            profile=profile,
            repeats=args.repeats,
            templates=args.templates,
            backend=backend,
            unsafe=args.unsafe,
            batch_size=args.batch_size or _default_batch(spec, n),
            workers=args.workers or default_workers(),
            items=args.items,
            languages=tuple(args.language or ()),
            auto_approve=args.auto_approve,
            time_mix=mix,
            llm=settings,
            budget=budget,
            llm_run=llm_run,
        )
        built[name] = run_build(config, args.store, n) | {"batch_size": config.batch_size}
    unbuilt = [{"reason": f"{name}: not built: {why}", "fix": fix} for name, (why, fix) in cannot.items()]
    found = [_failures(name, result) for name, result in built.items()]
    short = [name for name, result in built.items() if result["rows"] < result["n"]]
    recorded = _recorded_subsets(list(built), settings)
    llm = _llm_totals(built)
    stopped = sum(_budget_stopped(result) for result in built.values())
    lines = [_recorded_notice(recorded)] if recorded else []
    lines += [_line(name, result) for name, result in built.items()]
    lines += [failure["reason"] for failure in unbuilt]
    comparison = _compare(args, list(built))
    if comparison:
        lines += ["", comparison["_text"]]
    if llm["requests"] or llm["cache_hits"]:
        lines.append(_llm_line(llm, budget, stopped))
    # a spent budget is "done, but" (3), like a short subset; not built, or a failure of ours: exit 1
    exit_code = SHORT_EXIT_CODE if short or stopped else 0
    return {
        "built": built,
        "llm": llm | {"budget": budget.describe(), "budget_stopped_items": stopped},
        "recorded_llm": recorded,
        "not_built": {name: why for name, (why, _) in cannot.items()},
        "short": short,
        "store": str(args.store),
        "failures": unbuilt + [failure for group in found for failure in group],
        "exit_code": exit_code,
        "_text": "\n".join(lines),
        "_screen": _screen(built, lines[:1] if recorded else [], unbuilt)
        + (["", comparison["_text"]] if comparison else []),
    } | ({"compare_to": comparison["subsets"]} if comparison else {})


def _compare(args: argparse.Namespace, names: list[str]) -> dict[str, Any] | None:
    """--compare-to: the built subsets beside the release's (pipeline/export/compare.py)."""
    if not args.compare_to or not names:
        return None
    from pipeline.export.compare import compare_store

    return compare_store(args.store, args.compare_to, names)


def _check_counts(args: argparse.Namespace) -> None:
    """--n 0 used to build SURGE's full size (``args.n or size``): below 1 is refused before any work."""
    if args.n is not None and args.n < 1:
        raise ConfigurationError(
            f"--n must be at least 1, not {args.n}",
            hint="give --n 1 or more, or leave --n out for SURGE's Table 1 size",
        )


NO_BUILDER_FIX = "leave the subset out, or give its spec a build_batch (docs/build.md, 'Adding a subset')"
NO_CHECKER_FIX = "leave fl out, or set up a Lean checker (surge doctor; docs/lean.md)"


def _unbuildable(name: str, spec: Any) -> tuple[str, str] | None:
    """(why, how to fix it) when this machine or this version cannot build the subset at all."""
    if spec.build_batch is None or spec.plan_items is None:  # reported, not faked
        return f"construction method {spec.construction.value} is not wired for {name} yet", NO_BUILDER_FIX
    if why := _missing_checker(spec):
        return why, NO_CHECKER_FIX
    return None


def _missing_checker(spec: Any) -> str:
    """Why a verified subset (fl) cannot be built here, before any prover is asked ('' if it can)."""
    if spec.construction is not ConstructionMethod.INFERENCE_VERIFICATION:
        return ""
    from pipeline.build.prove import missing_checker

    why = missing_checker()
    return f"no Lean checker: {why}" if why else ""


def _recorded_subsets(names: list[str], configured: Any) -> list[str]:
    """The subsets built here whose LLM answers came from recorded responses: refactor subsets, with no
    endpoint set."""
    if configured.base_url and configured.model:
        return []
    return [n for n in names if REGISTRY[n].construction is ConstructionMethod.ITERATIVE_REFACTOR]


def _recorded_notice(subsets: list[str]) -> str:
    return (
        f"{', '.join(subsets)}: no LLM endpoint is set, so the refactors use the recorded responses in "
        f"pipeline/build/recorded/ ({failures.recorded_fix()})"
    )


def _llm_totals(built: dict[str, Any]) -> dict[str, Any]:
    """The run's LLM figures over every subset it built (each subset's from pipeline/build/spend.py)."""
    from pipeline.build.spend import FIGURES

    totals: dict[str, Any] = dict.fromkeys(FIGURES, 0)
    for result in built.values():
        for name in FIGURES:
            totals[name] += (result.get("llm") or {}).get(name, 0)
    totals["cost_usd"] = round(totals["cost_usd"], 6)
    return totals


def _budget_stopped(result: dict[str, Any]) -> int:
    return int(result["ours"].get(f"ours:{Ours.BUDGET_SPENT}", 0))


def _llm_line(llm: dict[str, Any], budget: Any, stopped: int) -> str:
    text = (
        f"LLM: {llm['requests']} requests ({llm['cache_hits']} cache hits, {llm['retries']} retries), "
        f"{llm['prompt_tokens']} + {llm['completion_tokens']} tokens, ${llm['cost_usd']:.4f}"
    )
    if budget.limited:
        text += f"; budget {budget.describe()}"
    if stopped:
        text += (
            f"\ndone, but the budget stopped it: {stopped} items not refactored (nothing recorded for "
            "them); run the same command again to resume (cached answers cost nothing)"
        )
    return text


def _default_batch(spec: Any, n: int) -> int:
    """Items per batch without --batch-size: no more than the items the rows asked for need (`--n 3`
    planned a whole batch of 16 once; a dr snippet gives about two rows), except where most items are
    dropped (refactor subsets)."""
    if spec.construction is ConstructionMethod.ITERATIVE_REFACTOR:
        return BATCH_ITEMS
    return min(BATCH_ITEMS, spec.items_for(n))


def _line(name: str, result: dict[str, Any]) -> str:
    text = f"{name}: {result['rows']} rows from {result['kept_items']} of {result['items']} items"
    return text + "".join(joint + note for joint, note in _notes(name, result))


def _notes(name: str, result: dict[str, Any]) -> list[tuple[str, str]]:
    """What a subset's line says beyond its figures, each with what joins it to the line before."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in result.get("drop_reasons", {}).items())
    notes = []
    if result["planned_items"] > result["n"]:  # say why more items ran than rows were asked for
        why = (
            f", in whole batches of {result['batch_size']} items: --batch-size"
            if REGISTRY[name].plans_whole_batches
            else ": later rounds made up for dropped items"
        )
        notes.append((" ", f"(planned {result['planned_items']} for {result['n']} rows{why})"))
    if reasons:
        notes.append(("; ", f"dropped: {reasons}"))
    if result.get("spread"):
        notes.append(("\n", f"{name}: {spread_line(result['spread'])}"))
    if result.get("awaiting_review"):
        notes.append(
            ("; ", f"{result['awaiting_review']} awaiting review (surge review list --db <store>/review.db)")
        )
    if _skipped(result) and result["rows"] >= result["n"]:  # short of --n, it is a failure, printed as one
        notes.append(("; ", _recorded_reason(result)))  # how to set an endpoint: the notice above, once
    if result["rows"] < result["n"]:
        notes.append(("\n", f"{name}: built {result['rows']} of {result['n']} rows: {_shortfall(result)}"))
    return notes


def _screen(built: dict[str, Any], notice: list[str], unbuilt: list[dict[str, str]]) -> list[str | Table]:
    """The subsets' lines as one table for a terminal, what they say beyond figures under it."""
    columns = ("subset", "rows", "of --n", "items kept", "items tried", "dropped")
    rows = [
        (name, r["rows"], r["n"], r["kept_items"], r["items"], r["dropped_items"])
        for name, r in built.items()
    ]
    notes = [
        note if note.startswith(f"{name}:") else f"{name}: {note}"
        for name, result in built.items()
        for _, note in _notes(name, result)
    ]
    table = Table(columns, rows, "subsets built", notes=notes + [f["reason"] for f in unbuilt])
    return [*notice, table] if built else [*notice, *table.notes]


def _skipped(result: dict[str, Any]) -> int:
    """Items the recorded responses had no answer for (no endpoint set)."""
    return int(result["ours"].get(f"ours:{Ours.NO_RECORDED_RESPONSE}", 0))


def _recorded_reason(result: dict[str, Any]) -> str:
    return failures.recorded_reason(_skipped(result), result["planned_items"])


def _shortfall(result: dict[str, Any]) -> str:
    """Why a subset has fewer rows than --n, most decisive cause first."""
    from flows.build_subset import MAX_CANDIDATES_PER_ROW  # loaded already: the flow has run

    if _budget_stopped(result):
        return "the budget stopped it (below); run again to resume"
    transient = [k for k in result["ours"] if Ours(k.removeprefix("ours:")).transient]
    if transient:
        return "a failure of ours stopped it (below); run again once fixed"
    why = []
    if _skipped(result):
        why.append(_recorded_reason(result))
    if result["ran_out"]:
        why.append(f"there are only {result['planned_items']} items to build from")
    elif not why and not result.get("awaiting_review"):
        why.append(
            f"it stopped after {result['planned_items']} items ({MAX_CANDIDATES_PER_ROW} per row asked): "
            f"{result['dropped_items']} dropped"
        )
    if result.get("awaiting_review"):
        why.append(f"{result['awaiting_review']} items await review")
    return "; ".join(why)


def _failures(name: str, result: dict[str, Any]) -> list[dict[str, str]]:
    """The failures of ours that left this subset's items unbuilt, each with its fix (exit 1)."""
    found = []
    for key, count in result["ours"].items():
        kind = Ours(key.removeprefix("ours:"))
        if kind is Ours.BUDGET_SPENT:
            continue  # not a failure: said once, on the LLM line, and the exit code is 3
        detail = str(result["details"].get(f"detail:{kind}", ""))
        if kind is Ours.NO_RECORDED_RESPONSE:
            if result["rows"] < result["n"]:  # recorded answers reached --n: said on the line, not a failure
                found.append(
                    {"reason": f"{name}: {_recorded_reason(result)}", "fix": failures.recorded_fix()}
                )
            continue
        reason, fix = failures.describe(kind, count, detail)
        found.append({"reason": f"{name}: {reason}", "fix": fix})
    return found
