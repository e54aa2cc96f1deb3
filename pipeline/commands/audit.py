"""surge audit: re-execute SURGE's released labels, score and classify each one, report (issue 6)."""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

from pipeline.commands.common import add_limit_arguments, add_store_argument, limits_from_args

HELP = (
    "re-execute a released SURGE dataset, score every label with SURGE's metric and explain each disagreement"
)
EXAMPLE = "surge audit dataset/ --subset ml --subset cl --limit 20 --repeats 2 --report audit.html"
SUBSET_CHOICES = ("ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="a released dataset/<subset>.json or the dataset/ folder")
    parser.add_argument(
        "--subset", action="append", choices=SUBSET_CHOICES, help="only these subsets (repeatable)"
    )
    parser.add_argument("--profile", action="append", default=None, help="environment profile (repeatable)")
    add_store_argument(parser)
    parser.add_argument(
        "--report", type=Path, default=None, help="HTML report (default: STORE/audit-report.html)"
    )
    parser.add_argument("--repeats", type=int, default=2, help="runs per program, to detect non-determinism")
    parser.add_argument("--limit", type=int, default=None, help="at most N records per subset")
    parser.add_argument("--backend", default="bwrap", help="bwrap (default) or docker")
    parser.add_argument(
        "--batch-size", type=int, default=16, help="programs per task (one sandbox per batch)"
    )
    parser.add_argument("--workers", type=int, default=None, help="batches in parallel (default: CPU cores)")
    add_limit_arguments(parser)


def load_profiles(names: list[str], backend: str) -> list[Any]:
    from sandboxes.profiles import check_backend, get_profile

    profiles = [get_profile(name) for name in names]
    check_backend(profiles, backend)
    return profiles


def limit_per_subset(records: list[Any], limit: int | None) -> list[Any]:
    if limit is None:
        return records
    seen: dict[str, int] = defaultdict(int)
    kept = []
    for record in records:
        if seen[record.subset] < limit:
            seen[record.subset] += 1
            kept.append(record)
    return kept


def execute(args: argparse.Namespace) -> dict[str, Any]:
    import pyarrow.compute as pc

    from pipeline.audit.convert import convert_all, load_dataset
    from pipeline.audit.plan import audit_rows, plan_requests, refusal_record
    from pipeline.audit.report import render_html, render_text, summarise
    from pipeline.audit.rows import AuditRow
    from pipeline.store import Store

    records = limit_per_subset(
        load_dataset(args.dataset, set(args.subset) if args.subset else None), args.limit
    )
    conversions, refusals = convert_all(records)
    profiles = load_profiles(args.profile or ["default"], args.backend)
    requests = plan_requests(conversions, profiles, limits_from_args(args), args.repeats)
    store = Store(args.store)
    _append_new(store.quarantine, [refusal_record(r) for r in refusals])

    done = store.runs.existing_ids()
    todo = [r for r in requests if r.run_id not in done]
    outcome: dict[str, Any] = {"written": 0, "sandbox_errors": 0, "failed_batches": 0}
    if todo:
        from flows.audit_dataset import audit_flow
        from flows.runtime import default_workers

        outcome = audit_flow(
            todo, args.store, args.backend, False, args.batch_size, args.workers or default_workers()
        )

    wanted = [r.run_id for r in requests]
    results = (
        {r.run_id: r for r in store.runs.records(filter=pc.field("run_id").isin(wanted))} if wanted else {}
    )
    rows = audit_rows(conversions, profiles, results)
    audit_table = store.table("audit", AuditRow, "audit_id")
    _append_new(audit_table, rows)

    summary = summarise(rows, refusals)
    report_path = args.report or (args.store / "audit-report.html")
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(render_html(summary, rows), encoding="utf-8")
    summary.update(
        runs_planned=len(requests),
        runs_reused=len(requests) - len(todo),
        runs_executed=outcome["written"],
        not_audited=len(conversions) * len(profiles) - len(rows),
        sandbox_errors=outcome["sandbox_errors"],
        failed_batches=outcome["failed_batches"],
        report=str(report_path),
        audit_table=str(audit_table.folder),
    )
    if getattr(args, "json", False):
        return summary  # for CI: counts and scores only, no rendered table
    lost = ""
    if summary["not_audited"]:
        lost = (
            f"\n{summary['not_audited']} labels not audited (sandbox errors, quarantined): run again to retry"
        )
    summary["_text"] = (
        render_text(summary)
        + lost
        + (
            f"\nruns: {len(requests)} planned, {summary['runs_reused']} reused from the store, "
            f"{summary['runs_executed']} executed; report: {report_path}"
        )
    )
    return summary


def _append_new(table: Any, records: list[Any]) -> None:
    """Append records whose id the table does not hold yet (a rerun adds nothing twice)."""
    seen = table.existing_ids()
    fresh = []
    for record in records:
        record_id = getattr(record, table.id_field)
        if record_id not in seen:
            seen.add(record_id)
            fresh.append(record)
    table.append(fresh)
    table.flush()
