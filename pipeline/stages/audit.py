"""The audit stage: re-execute a released dataset, score every label with its subset's metric and explain
each disagreement (`surge audit`, docs/audit.md).

    from pipeline.stages.audit import AuditOptions, audit
    summary = audit(AuditOptions(dataset=Path("dataset/"), profile=["all"], limit=20))
    summary.by_subset["cl"].reproduced, summary.report

The rounds, the rows and the report are the audit package's (pipeline/audit/stage.py); this module gives
them the engine: Prefect's flow over the store's batches, sized by the options.
"""

from __future__ import annotations

from pipeline.audit.feed import LabelFeed
from pipeline.audit.stage import Executor, run_audit
from pipeline.audit.summary import AuditOptions, AuditSummary, Executed
from pipeline.observe import Observer, watched_by
from pipeline.store import Store

__all__ = ["AuditOptions", "AuditSummary", "audit", "engine_executor"]


def audit(options: AuditOptions, *, observer: Observer | None = None) -> AuditSummary:
    """Re-execute the dataset the options name and classify every label; the rows go to the store's audit
    table, the HTML report (and the errata, if asked) are written. ``observer`` gets the counts of
    its runs as they land (pipeline/observe.py)."""
    from flows.engine import using_engine

    # One engine for every wave of every round (the caller's, if it opened one): each wave is a job, and
    # an engine of its own would start Prefect's API again for each.
    with using_engine(), watched_by(observer):
        return run_audit(options, engine_executor(options))


def engine_executor(options: AuditOptions) -> Executor:
    """The one call into the execution flow: the whole audit is one job fed by its labels' rounds
    (``LabelFeed``); each request carries its backend (``identified``), so profiles on bwrap and Docker
    go in one job, and the feed orders them longest first."""
    from flows.naming import JobLabel
    from pipeline.stages.batches import Batching, execute_fed

    store = Store(options.store)
    # The flow run links the report this audit writes (Prefect's UI shows it under the run's artifacts).
    report = str(options.report_path)

    def execute(feed: LabelFeed) -> Executed:
        audit = feed.audit
        label = JobLabel(
            command="audit",
            subsets=tuple(sorted({c.record.subset for c in audit.conversions})),
            profiles=tuple(p.name for p in audit.profiles),
            programs=len({c.program.program_id for c in audit.conversions}),
            report=report,
        )
        batching = Batching.model_validate(options.batching.model_dump())
        outcome = execute_fed(store, feed, set(audit.chosen.backends.values()), batching, label)
        return Executed.model_validate(outcome.model_dump())

    return execute
