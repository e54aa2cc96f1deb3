"""surge audit: the audit stage (pipeline/stages/audit.py) from its flags, and its summary as text."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.commands.common import (
    add_backend_argument,
    add_batch_arguments,
    add_dask_argument,
    add_limit_arguments,
    add_profile_argument,
    add_store_argument,
    limit_seconds,
    positive_int,
    repeats_count,
    time_margin,
)
from pipeline.commands.display import Table
from pipeline.subsets import SUBSET_NAMES

if TYPE_CHECKING:  # the stage is imported when the command runs: building the parser stays light
    from pipeline.audit.figures import AuditFigures, HeadlineRow
    from pipeline.observe import Observer
    from pipeline.stages.audit import AuditOptions, AuditSummary

HELP = (
    "re-execute a released SURGE dataset, score every label with SURGE's metric and explain each disagreement"
)
EXAMPLE = "surge audit dataset/ --profile all --limit 20 --repeats 2 --json"
SUBSET_CHOICES = SUBSET_NAMES  # the registry's, when a value is checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="a released dataset/<subset>.json or the dataset/ folder")
    parser.add_argument(
        "--subset", action="append", choices=SUBSET_CHOICES, help="only these subsets (repeatable)"
    )
    add_profile_argument(parser, "; `all`: every profile")
    add_store_argument(parser)
    parser.add_argument(
        "--report", type=Path, default=None, help="HTML report (default: STORE/audit-report.html)"
    )
    parser.add_argument(
        "--repeats", type=repeats_count, default=2, help="runs per program (1-100), to detect non-determinism"
    )
    parser.add_argument(
        "--limit", type=positive_int, default=None, help="at most N records per subset (N >= 1)"
    )
    add_backend_argument(parser)
    add_batch_arguments(parser)
    add_dask_argument(parser)
    add_limit_arguments(parser)
    parser.add_argument(
        "--time-margin",
        type=time_margin,
        default=2.0,
        help="a record with a recorded run time (sc/tc) gets a CPU limit of that time x this margin + 1 s",
    )
    parser.add_argument(
        "--time-cap-s",
        type=limit_seconds,
        default=300.0,
        help="the most CPU seconds a recorded time can raise a limit to",
    )
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="every label under every profile, each repeated (default: adaptive, each label first once "
        "under its subset's likeliest profile; only labels that disagree are repeated and tried elsewhere)",
    )
    parser.add_argument(
        "--errata",
        type=Path,
        default=None,
        metavar="DIR",
        help="write DIR/errata.jsonl, a corrected dataset in SURGE's format and a summary per subset",
    )


def STAGE(options: AuditOptions, *, observer: Observer | None = None) -> AuditSummary:  # noqa: N802
    """The stage this command calls (pipeline/stages/audit.py)."""
    from pipeline.stages.audit import audit

    return audit(options, observer=observer)


def options_of(args: argparse.Namespace) -> AuditOptions:
    """The stage's options from the parsed flags (a field has its flag's name)."""
    from pipeline.stages.audit import AuditOptions

    return AuditOptions.model_validate({name: getattr(args, name) for name in AuditOptions.model_fields})


def render(summary: AuditSummary, options: AuditOptions | None = None) -> str:
    """Each label once (its best class over profiles), per subset and language; the causes; the runs."""
    return "\n".join([*render_table(summary), *render_notes(summary), runs_line(summary)])


def screen(summary: AuditSummary, options: AuditOptions | None = None) -> list[str | Table]:
    """``render``'s figures as a table for a terminal, the notes under it."""
    notes = [*render_notes(summary), *runs_line(summary).splitlines()]
    return [Table(HEADLINE_COLUMNS, headline_cells(summary), figures=range(1, 8), notes=notes)]


HEADLINE_COLUMNS = (
    "subset/language", "labels", "reproduced", "explained", "unexplained", "refused", "not run", "score",
    "best profile",
)  # fmt: skip


def headline_cells(figures: AuditFigures) -> list[tuple[str | int, ...]]:
    """The headline's rows as the table's cells: the score to three places, a tie named after the best."""
    from pipeline.audit.figures import headline_rows

    return [
        (
            row.name,
            row.labels,
            row.reproduced,
            row.explained,
            row.unexplained,
            row.refused,
            row.not_run,
            "-" if row.mean_score is None else f"{row.mean_score:.3f}",
            best_profile_cell(row),
        )  # fmt: skip
        for row in headline_rows(figures)
    ]


def best_profile_cell(row: HeadlineRow) -> str:
    if row.tied_with:
        return f"{row.best_profile} (tied: {', '.join(row.tied_with)})"
    return row.best_profile or "-"


def render_table(figures: AuditFigures) -> list[str]:
    header = f"{'subset/language':<18}{'labels':>7}{'reproduced':>11}{'explained':>10}{'unexplained':>12}"
    header += f"{'refused':>8}{'not run':>8}{'score':>7}  best profile"
    lines = [header]
    for name, labels, reproduced, explained, unexplained, refused, not_run, score, best in headline_cells(
        figures
    ):
        lines.append(
            f"{name:<18}{labels:>7}{reproduced:>11}{explained:>10}"
            f"{unexplained:>12}{refused:>8}{not_run:>8}{score:>7}  {best}"
        )
    return lines


def render_notes(figures: AuditFigures) -> list[str]:
    """What the table's figures leave out: the causes, refusals, leaks, skipped profiles, the ranking."""
    lines = []
    if figures.explained:
        lines.append("explained by: " + ", ".join(f"{k} {v}" for k, v in figures.explained.items()))
    if figures.refusals:
        lines.append(f"refused records: {figures.refused} (kept in the quarantine table)")
        lines.extend(f"  {r.location}: {r.reason}" for r in figures.refusals[:20])
    if figures.leaks:
        lines.append(f"answer leakage: {len(figures.leaks)} programs ({', '.join(figures.leaks[:8])} ...)")
    for name, reason in figures.skipped_profiles.items():
        lines.append(f"profile {name} skipped: {reason}")
    if figures.best_profile is not None:
        ranking = figures.best_profile.ranking
        lines.append("profiles: " + ", ".join(f"{r.profile} {r.reproduced}/{r.labels}" for r in ranking))
        lines.append(f"best profile: {figures.best_profile.profile}")
    return lines


def runs_line(summary: AuditSummary) -> str:
    lost = saved = ""
    if summary.not_audited:
        lost = f"{summary.not_audited} labels not audited (sandbox errors, quarantined): run again\n"
    if summary.plan == "adaptive":
        # Fewer, usually; more where a label's repeats or vacuity mutants outnumber what sharing saved.
        fewer_or_more = "fewer" if summary.executions_saved >= 0 else "more"
        saved = (
            f" ({summary.executions_planned} program executions, "
            f"{abs(summary.executions_saved)} {fewer_or_more} than every label under every profile)"
        )
    errata = f"; errata: {summary.errata}" if summary.errata else ""
    if summary.seed_pinned_labels:
        saved += (
            f"; seed pinned for {summary.seed_pinned_labels} non-deterministic labels "
            f"({summary.executions_seed_pinning} executions)"
        )
    return (
        f"{lost}runs ({summary.plan} plan): {summary.runs_planned} planned{saved}, "
        f"{summary.runs_reused} reused from the store, {summary.runs_executed} executed; "
        f"report: {summary.report}{errata}"
    )
