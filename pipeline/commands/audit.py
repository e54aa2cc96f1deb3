"""surge audit: a thin layer over the audit stage (`pipeline.audit.stage.run_audit`)."""

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
    limit_seconds,
    limits_from_args,
    positive_int,
    repeats_count,
    time_margin,
)
from pipeline.commands.display import Table
from pipeline.subsets import SUBSET_NAMES

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


def options_of(args: argparse.Namespace) -> Any:
    from pipeline.audit.plan import LimitPolicy
    from pipeline.audit.summary import AuditOptions

    return AuditOptions(
        dataset=args.dataset,
        subsets=tuple(args.subset or ()),
        profiles=tuple(args.profile or ["default"]),
        store=args.store,
        report=args.report,
        repeats=args.repeats,
        limit=args.limit,
        backend=args.backend,
        limits=LimitPolicy(base=limits_from_args(args), margin=args.time_margin, cap_s=args.time_cap_s),
        exhaustive=args.exhaustive,
        errata=args.errata,
    )


def execute(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.audit.report import HEADLINE_COLUMNS, headline_rows, render_notes, render_text
    from pipeline.audit.stage import run_audit

    options = options_of(args)
    summary = run_audit(options, executor(args, options)).model_dump(mode="json")
    if getattr(args, "json", False):
        return summary  # for CI: counts and scores only, no rendered table
    summary["_text"] = render_text(summary) + "\n" + runs_line(summary)
    notes = [*render_notes(summary), *runs_line(summary).splitlines()]
    summary["_screen"] = [Table(HEADLINE_COLUMNS, headline_rows(summary), figures=range(1, 8), notes=notes)]
    return summary


def runs_line(summary: dict[str, Any]) -> str:
    lost = saved = ""
    if summary["not_audited"]:
        lost = f"{summary['not_audited']} labels not audited (sandbox errors, quarantined): run again\n"
    if summary["plan"] == "adaptive":
        saved = (
            f" ({summary['executions_planned']} program executions, "
            f"{summary['executions_saved']} fewer than every label under every profile)"
        )
    errata = f"; errata: {summary['errata']}" if summary["errata"] else ""
    return (
        f"{lost}runs ({summary['plan']} plan): {summary['runs_planned']} planned{saved}, "
        f"{summary['runs_reused']} reused from the store, {summary['runs_executed']} executed; "
        f"report: {summary['report']}{errata}"
    )


def executor(args: argparse.Namespace, options: Any) -> Any:
    """The one call into the execution flow: each request carries its backend (``identified``), so
    profiles on bwrap and Docker go in one job; the expected seconds size and order its batches."""
    from flows.naming import JobLabel
    from pipeline.commands.common import execute_requests
    from pipeline.store import Store

    # The flow run links the report this audit writes (Prefect's UI shows it under the run's artifacts).
    report = str(options.report_path)

    def run(requests: list[Any], expected_s: Any) -> dict[str, Any]:
        label = JobLabel.of("audit", requests, report=report)
        return execute_requests(Store(args.store), requests, args, label, cost_s=expected_s)

    return run
