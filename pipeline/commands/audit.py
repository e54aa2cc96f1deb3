"""surge audit: re-execute SURGE's released labels, score and classify each one, report (issues 6, 15)."""

from __future__ import annotations

import argparse
from collections import defaultdict
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
    from pipeline.audit.convert import convert_all, load_dataset
    from pipeline.audit.plan import (
        LimitPolicy,
        alternative_requests,
        audit_rows,
        plan_requests,
        refusal_record,
        unrunnable_rows,
    )
    from pipeline.audit.profiles import resolve_profiles
    from pipeline.audit.report import render_html, render_text, report_facts, summarise
    from pipeline.audit.rows import AuditRow
    from pipeline.store import Store
    from sandboxes.identity import identify  # each profile on its backend, as resolve_profiles chose

    records, refusals = load_dataset(args.dataset, set(args.subset) if args.subset else None)
    conversions, unrunnable, refused = convert_all(limit_per_subset(records, args.limit))
    refusals += refused
    chosen = resolve_profiles(args.profile or ["default"], args.backend)
    profiles = chosen.runnable
    policy = LimitPolicy(base=limits_from_args(args), margin=args.time_margin, cap_s=args.time_cap_s)
    store = Store(args.store)
    _append_new(store.quarantine, [refusal_record(r) for r in refusals])

    # Round 1: each record's first reading; round 2: the other readings of those that did not reproduce.
    requests = identify(plan_requests(conversions, profiles, policy, args.repeats), args.backend)
    outcome = _run_missing(requests, args)
    stored = _stored(store, requests)
    rows = audit_rows(conversions, profiles, stored)
    extra = identify(alternative_requests(conversions, rows, profiles, policy, args.repeats), args.backend)
    if extra:
        second = _run_missing(extra, args)
        outcome = {k: outcome[k] + second[k] for k in outcome}
        requests += extra
        stored = _stored(store, requests)
        rows = audit_rows(conversions, profiles, stored)
    rows += unrunnable_rows(unrunnable, profiles)
    audit_table = store.table("audit", AuditRow, "audit_id")
    _append_new(audit_table, rows)

    summary = summarise(rows, refusals, chosen.skipped)
    report_path = args.report or (args.store / "audit-report.html")
    report_path.parent.mkdir(parents=True, exist_ok=True)
    facts = report_facts(args.dataset, stored.values(), [p.name for p in profiles])
    report_path.write_text(render_html(summary, rows, facts), encoding="utf-8")
    summary.update(
        runs_planned=len(requests),
        runs_reused=len(requests) - outcome["todo"],
        runs_executed=outcome["written"],
        not_audited=(len(conversions) + len(unrunnable)) * len(profiles) - len(rows),
        sandbox_errors=outcome["sandbox_errors"],
        failed_batches=outcome["failed_batches"],
        failures=outcome["failures"],
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


def _stored(store: Any, requests: list[Any]) -> dict[str, Any]:
    """run id -> the stored result the audit uses for it (its provenance names the toolchain)."""
    from pipeline.audit.plan import pick_stored

    wanted = [r.run_id for r in requests]
    return pick_stored(store.runs.records(where={"run_id": wanted}) if wanted else [])


def _run_missing(requests: list[Any], args: Any) -> dict[str, Any]:
    """Execute what the store cannot answer. Run ids hash the limits (issue 10), so a stored result made
    under other limits, e.g. a timeout before `--cpu-s` or the recorded time raised them, is never reused."""
    ran = execute_runs(requests, args)
    return {
        "todo": ran["planned_runs"] - ran["already_stored"],
        "written": int(ran.get("written", 0)),
        "sandbox_errors": int(ran.get("sandbox_errors", 0)),
        "failed_batches": int(ran.get("failed_batches", 0)),
        "failures": list(ran.get("failures", [])),
    }


def execute_runs(todo: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    """The one call into the execution flow (kept small: the orchestration helper owns how it is called).
    Each request carries its backend (`identify`), so profiles on bwrap and Docker go in one job."""
    from flows.naming import JobLabel
    from pipeline.commands.common import execute_requests
    from pipeline.store import Store

    # The flow run links the report this audit writes (Prefect's UI shows it under the run's artifacts).
    report = str(args.report or (args.store / "audit-report.html"))
    return execute_requests(Store(args.store), todo, args, JobLabel.of("audit", todo, report=report))


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
