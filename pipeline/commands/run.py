"""surge run: execute a JSONL file of programs in sandboxes and store the results as Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.commands.common import (
    add_backend_argument,
    add_batch_arguments,
    add_dask_argument,
    add_limit_arguments,
    add_profile_argument,
    add_store_argument,
    execute_requests,
    limits_from_args,
    old_rule_note,
    repeats_count,
)
from pipeline.commands.display import Table, key_values
from pipeline.errors import ConfigurationError, InputError
from pipeline.programs import load_program_file, parse_setting, plan_requests, with_default_setting
from pipeline.store import Store

HELP = "execute programs (JSONL, one per line) in sandboxes and append the results to the Parquet store"
EXAMPLE = "surge run examples/programs.jsonl --store .surge/store --repeats 2 --setting g++-C++14--O2"
BAD_INPUT_EXIT_CODE = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "programs", type=Path, help="JSONL file: one Program per line (README: 'A program line')"
    )
    add_store_argument(parser)
    add_profile_argument(parser)
    parser.add_argument(
        "--setting",
        default=None,
        help="setting, e.g. g++-C++14--O2, for the lines without one whose language's toolchain takes it "
        "(g++: C++); the others run as usual, and the summary says how many it applied to",
    )
    parser.add_argument(
        "--repeats",
        type=repeats_count,
        default=1,
        help="run each program N times (1-100) to detect non-determinism",
    )
    add_backend_argument(parser)
    parser.add_argument(
        "--unsafe", action="store_true", help="allow running without a sandbox (trusted code only)"
    )
    add_batch_arguments(parser)
    add_dask_argument(parser)
    parser.add_argument(
        "--strict", action="store_true", help=f"exit {BAD_INPUT_EXIT_CODE} if any line was bad"
    )
    add_limit_arguments(parser)


def default_setting(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return parse_setting(text)
    except ValueError as error:
        raise ConfigurationError(
            f"--setting {text!r}: {error}", hint="write it as COMPILER-C++NN--OX, e.g. g++-C++14--O2"
        ) from None


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from flows.engine import using_engine
    from sandboxes.identity import identify
    from sandboxes.profiles import get_profile

    profiles = [get_profile(name) for name in (args.profile or ["default"])]
    setting = default_setting(args.setting)
    limits = limits_from_args(args)
    store = Store(args.store)
    entries, bad_lines = load_program_file(args.programs)
    store.quarantine.append_new(bad_lines)  # the same bad file twice: its records are stored once
    if not entries:
        kept = (
            f" ({len(bad_lines)} bad lines, kept in the quarantine table of {args.store})"
            if bad_lines
            else ""
        )
        raise InputError(
            f"{args.programs} holds no programs to run{kept}",
            hint="write one JSON program per line, e.g. "
            '{"language": "python", "source": "print(1)"} (README: "A program line")',
        )
    reach = None
    if setting is not None:
        entries, reach = with_default_setting(entries, setting)
    with using_engine() as engine:
        engine.start_api()  # Prefect's API boots while the requests are planned and written
        planned = plan_requests(entries, profiles, limits, args.repeats)
        requests = identify(planned, args.backend, args.unsafe)
        outcome = execute_requests(store, requests, args, "surge-run", unsafe=args.unsafe)
    summary: dict[str, Any] = {
        "programs": len(entries),
        "bad_lines": [{"location": q.location, "reason": q.reason} for q in bad_lines],
        "setting": {"key": args.setting, **reach.model_dump()} if reach is not None else None,
        **outcome,
        "store": str(args.store),
        "exit_code": BAD_INPUT_EXIT_CODE if (args.strict and bad_lines) else 0,
    }
    summary["_text"] = render(summary)
    summary["_screen"] = screen(summary)
    return summary


def render_setting(reach: dict[str, Any]) -> str:
    """Where --setting applied: a setting is a fact of a toolchain, so a mixed file runs partly under it."""
    refused = ", ".join(f"{language} {n}" for language, n in reach["not_applied_to"].items())
    line = (
        f"setting           {reach['key']} applied to {_programs(reach['applied'])}, "
        f"not to {reach['not_applied']} (they cannot take it{': ' + refused if refused else ''})"
    )
    if reach["own_settings"]:
        line += f"; {reach['own_settings']} kept the settings of their line"
    return line


def _programs(count: int) -> str:
    return f"{count} program" if count == 1 else f"{count} programs"


def screen(summary: dict[str, Any]) -> list[str | Table]:
    """``render``'s lines for a terminal: the figures and the verdicts as tables, the notes as lines."""
    figures = key_values(
        [
            ("programs read", summary["programs"]),
            ("runs planned", f"{summary['planned_runs']} ({summary['already_stored']} already in the store)"),
            ("rows written", f"{summary['written']} -> {summary['store']}"),
        ]
    )
    verdicts = Table(("verdict", "runs"), sorted(summary["verdicts"].items()))
    notes = render(summary).splitlines()[3 + len(summary["verdicts"]) :]
    return [figures, *([verdicts] if summary["verdicts"] else []), *notes]


def render(summary: dict[str, Any]) -> str:
    lines = [
        f"programs read     {summary['programs']}",
        f"runs planned      {summary['planned_runs']} ({summary['already_stored']} already in the store)",
        f"rows written      {summary['written']} -> {summary['store']}",
    ]
    for verdict, count in sorted(summary["verdicts"].items()):
        lines.append(f"  {verdict:<18}{count}")
    if summary["setting"]:
        lines.append(render_setting(summary["setting"]))
    if summary["sandbox_errors"]:
        lines.append(f"sandbox errors    {summary['sandbox_errors']} runs (quarantined; run again to retry)")
    if summary["failed_batches"]:
        lines.append(f"failed batches    {summary['failed_batches']} (why: below; run again to resume)")
    if summary["bad_lines"]:
        lines.append(f"bad lines         {len(summary['bad_lines'])} (skipped, kept in the quarantine table)")
        lines.extend(f"  {bad['location']}: {bad['reason']}" for bad in summary["bad_lines"])
    if summary["old_rule_rows"]:
        lines.append(old_rule_note(summary["old_rule_rows"]))
    return "\n".join(lines)
