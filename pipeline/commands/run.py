"""surge run: the run stage (pipeline/stages/run.py) from its flags, and its summary as text."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.commands.common import (
    add_backend_argument,
    add_batch_arguments,
    add_dask_argument,
    add_limit_arguments,
    add_profile_argument,
    add_store_argument,
    old_rule_note,
    options_from,
    repeats_count,
)
from pipeline.commands.display import Table, key_values
from pipeline.stages.options import RunOptions
from pipeline.stages.run import BAD_INPUT_EXIT_CODE, RunSummary, SettingApplied, run

HELP = "execute programs (JSONL, one per line) in sandboxes and append the results to the Parquet store"
EXAMPLE = "surge run examples/programs.jsonl --store .surge/store --repeats 2 --setting g++-C++14--O2"

STAGE = run  # the stage this command calls


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


def options_of(args: argparse.Namespace) -> RunOptions:
    return options_from(args, RunOptions)


def render_setting(reach: SettingApplied) -> str:
    """Where --setting applied: a setting is a fact of a toolchain, so a mixed file runs partly under it."""
    refused = ", ".join(f"{language} {n}" for language, n in reach.not_applied_to.items())
    line = (
        f"setting           {reach.key} applied to {_programs(reach.applied)}, "
        f"not to {reach.not_applied} (they cannot take it{': ' + refused if refused else ''})"
    )
    if reach.own_settings:
        line += f"; {reach.own_settings} kept the settings of their line"
    return line


def _programs(count: int) -> str:
    return f"{count} program" if count == 1 else f"{count} programs"


def screen(summary: RunSummary, options: RunOptions) -> list[str | Table]:
    """``render``'s lines for a terminal: the figures and the verdicts as tables, the notes as lines."""
    figures = key_values(
        [
            ("programs read", summary.programs),
            ("runs planned", f"{summary.planned_runs} ({summary.already_stored} already in the store)"),
            ("rows written", f"{summary.written} -> {summary.store}"),
        ]
    )
    verdicts = Table(("verdict", "runs"), sorted(summary.verdicts.items()))
    notes = render(summary, options).splitlines()[3 + len(summary.verdicts) :]
    return [figures, *([verdicts] if summary.verdicts else []), *notes]


def render(summary: RunSummary, options: RunOptions) -> str:
    lines = [
        f"programs read     {summary.programs}",
        f"runs planned      {summary.planned_runs} ({summary.already_stored} already in the store)",
        f"rows written      {summary.written} -> {summary.store}",
    ]
    for verdict, count in sorted(summary.verdicts.items()):
        lines.append(f"  {verdict:<18}{count}")
    if summary.setting:
        lines.append(render_setting(summary.setting))
    if summary.sandbox_errors:
        lines.append(f"sandbox errors    {summary.sandbox_errors} runs (quarantined; run again to retry)")
    if summary.failed_batches:
        lines.append(f"failed batches    {summary.failed_batches} (why: below; run again to resume)")
    if summary.bad_lines:
        lines.append(f"bad lines         {len(summary.bad_lines)} (skipped, kept in the quarantine table)")
        lines.extend(f"  {bad.location}: {bad.reason}" for bad in summary.bad_lines)
    if summary.old_rule_rows:
        lines.append(old_rule_note(summary.old_rule_rows))
    return "\n".join(lines)
