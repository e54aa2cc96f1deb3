"""The audit stage as the library calls it until the audit has a stage module of its own: the audit's own
options from the flag-shaped ``AuditOptions``, its executor over the batch stage, and its summary with the
exit rule. What the command prints is rendered by pipeline/commands/audit.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict

from pipeline.stages.batches import Batching, execute_requests, run_limits
from pipeline.stages.observe import Observer, tell
from pipeline.stages.options import AuditOptions
from pipeline.stages.results import StageResult

if TYPE_CHECKING:
    from pipeline.audit.summary import AuditOptions as AuditPlan
    from pipeline.records import RunRequest


class AuditSummary(StageResult):
    """The audit stage's summary (``pipeline.audit.summary.AuditSummary``): its figures are that model's
    fields, kept whole."""

    model_config = ConfigDict(extra="allow")

    report: str
    plan: str
    runs_planned: int
    runs_reused: int
    runs_executed: int
    executions_planned: int
    executions_saved: int
    errata: str | None = None


def audit_stage(options: AuditOptions, *, observer: Observer | None = None) -> AuditSummary:
    """Re-execute a released dataset and classify every label (`surge audit`)."""
    from flows.engine import using_engine
    from pipeline.audit.stage import run_audit

    plan = audit_plan(options)
    tell(observer, "audit", "started", str(options.dataset))
    with using_engine():  # one engine for the audit's waves of batches
        found = run_audit(plan, executor(options, plan))
    return AuditSummary.model_validate(found.model_dump(mode="json"))


def audit_plan(options: AuditOptions) -> AuditPlan:
    from pipeline.audit.plan import LimitPolicy
    from pipeline.audit.summary import AuditOptions as AuditPlan

    limits = run_limits(options.cpu_s, options.wall_s, options.memory_mib, options.output_bytes)
    return AuditPlan(
        dataset=options.dataset,
        subsets=tuple(options.subset or ()),
        profiles=tuple(options.profile or ["default"]),
        store=options.store,
        report=options.report,
        repeats=options.repeats,
        limit=options.limit,
        backend=options.backend,
        limits=LimitPolicy(base=limits, margin=options.time_margin, cap_s=options.time_cap_s),
        exhaustive=options.exhaustive,
        errata=options.errata,
    )


def executor(options: AuditOptions, plan: AuditPlan) -> Any:
    """The one call into the execution flow: each request carries its backend, so profiles on bwrap and
    Docker go in one job; the expected seconds size and order its batches."""
    from flows.naming import JobLabel
    from pipeline.store import Store

    report = str(plan.report_path)  # the flow run links the report this audit writes
    batching = Batching(
        batch_size=options.batch_size, workers=options.workers, dask_address=options.dask_address
    )

    def run(requests: list[RunRequest], expected_s: Mapping[str, float]) -> dict[str, Any]:
        label = JobLabel.of("audit", requests, report=report)
        outcome = execute_requests(Store(options.store), requests, batching, label, cost_s=expected_s)
        return outcome.model_dump(mode="json")

    return run
