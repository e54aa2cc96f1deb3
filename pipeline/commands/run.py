"""surge run: execute a JSONL file of programs in sandboxes and store the results as Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import add_limit_arguments, add_store_argument, limits_from_args
from pipeline.programs import load_program_file, parse_setting, plan_requests
from pipeline.records import RunRequest
from pipeline.store import Store

HELP = "execute programs (JSONL, one per line) in sandboxes and append the results to the Parquet store"
EXAMPLE = "surge run examples/programs.jsonl --store .surge/store --repeats 2 --setting g++-C++14--O2"
BAD_INPUT_EXIT_CODE = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("programs", type=Path, help="JSONL file: one Program per line (see docs/programs.md)")
    add_store_argument(parser)
    parser.add_argument(
        "--profile", action="append", default=None, help="environment profile (repeatable; default: default)"
    )
    parser.add_argument(
        "--setting", default=None, help="default setting, e.g. g++-C++14--O2, for lines without one"
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="run each program N times to detect non-determinism"
    )
    parser.add_argument("--backend", default="bwrap", help="bwrap (default), docker, or unsafe-local")
    parser.add_argument(
        "--unsafe", action="store_true", help="allow running without a sandbox (trusted code only)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=16, help="programs per task (one sandbox per batch)"
    )
    parser.add_argument("--workers", type=int, default=None, help="batches in parallel (default: CPU cores)")
    parser.add_argument(
        "--strict", action="store_true", help=f"exit {BAD_INPUT_EXIT_CODE} if any line was bad"
    )
    add_limit_arguments(parser)


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from flows.run_programs import run_flow
    from flows.runtime import default_workers
    from sandboxes.profiles import check_backend, get_profile

    entries, bad_lines = load_program_file(args.programs)
    profiles = [get_profile(name) for name in (args.profile or ["default"])]
    check_backend(profiles, args.backend)
    default_setting = parse_setting(args.setting) if args.setting else None
    planned = plan_requests(entries, profiles, limits_from_args(args), args.repeats, default_setting)
    store = Store(args.store)
    store.quarantine.append(bad_lines)
    store.quarantine.flush()
    done = store.runs.existing_ids()
    todo: list[RunRequest] = [r for r in planned if r.run_id not in done]
    outcome: dict[str, Any] = {"written": 0, "sandbox_errors": 0, "failed_batches": 0, "verdicts": {}}
    if todo:
        workers = args.workers or default_workers()
        outcome = run_flow(todo, args.store, args.backend, args.unsafe, args.batch_size, workers)
    summary: dict[str, Any] = {
        "programs": len(entries),
        "bad_lines": [{"location": q.location, "reason": q.reason} for q in bad_lines],
        "planned_runs": len(planned),
        "already_stored": len(planned) - len(todo),
        **outcome,
        "store": str(args.store),
        "exit_code": BAD_INPUT_EXIT_CODE if (args.strict and bad_lines) else 0,
    }
    summary["_text"] = render(summary)
    return summary


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"programs read     {summary['programs']}",
        f"runs planned      {summary['planned_runs']} ({summary['already_stored']} already in the store)",
        f"rows written      {summary['written']} -> {summary['store']}",
    ]
    for verdict, count in sorted(summary["verdicts"].items()):
        lines.append(f"  {verdict:<18}{count}")
    if summary["sandbox_errors"] or summary["failed_batches"]:
        lines.append(
            f"sandbox errors    {summary['sandbox_errors']} runs, {summary['failed_batches']} batches "
            "(quarantined; run again to retry)"
        )
    if summary["bad_lines"]:
        lines.append(f"bad lines         {len(summary['bad_lines'])} (skipped, kept in the quarantine table)")
        lines.extend(f"  {bad['location']}: {bad['reason']}" for bad in summary["bad_lines"])
    return "\n".join(lines)
