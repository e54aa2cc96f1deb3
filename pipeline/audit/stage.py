"""The audit over an engine the caller gives: `run_audit(options, execute) -> AuditSummary` (the stage,
pipeline/stages/audit.py, gives it Prefect's; a test, a fake backend).

Its rounds, label by label, are the feed's (pipeline/audit/feed.py): the engine runs what the feed gives,
as it gives it, and the feed hears of each batch as it ends. ``execute(feed)`` runs the whole audit's
work in one job and returns what it did (``Executed``). Then every row is written, with the report and
the errata.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.feed import ROWS_WRITTEN_EVERY_S, LabelFeed, Round
from pipeline.audit.figures import AuditFigures, summarise
from pipeline.audit.html import ReportFacts, render_html, report_facts
from pipeline.audit.plan import (
    LimitPolicy,
    Pair,
    expected_seconds,
    first_profiles,
    plan_requests,
    stored_cpu,
)
from pipeline.audit.profiles import ChosenProfiles, resolve_profiles
from pipeline.audit.rows import AuditRow, Conversion, Unrunnable
from pipeline.audit.summary import AuditOptions, AuditRuns, AuditSummary, Executed, RunCounts
from pipeline.audit.verdicts import (
    audit_rows,
    conflicts_of,
    keep_better,
    keys_of,
    refusal_record,
    unrunnable_rows,
)
from pipeline.records import RunRequest, RunResult, joined_parts
from pipeline.store import Store
from sources.surge_release import ReleasedRecord

Executor = Callable[[LabelFeed], Executed]


def run_audit(
    options: AuditOptions, execute: Executor, *, rows_every_s: float = ROWS_WRITTEN_EVERY_S
) -> AuditSummary:
    """Audit the dataset the options name on the caller's engine: the rows go to the store's audit table,
    the HTML report and the errata (if asked) are written. ``rows_every_s``: how often finished labels'
    rows are written while the job runs."""
    records, refusals = load_dataset(options.dataset, options.subsets)
    conversions, unrunnable, refused = convert_all(limit_per_subset(records, options.limit))
    refusals += refused
    chosen = resolve_profiles(options.profiles, options.backend)
    store = Store(options.store)
    store.quarantine.append_new(refusal_record(r) for r in refusals)
    audit = Audit(options, store, chosen, conversions, execute, rows_every_s)
    rows = audit.run()
    rows += unrunnable_rows(unrunnable, chosen.runnable)
    audit.table.append_new(rows)
    figures = summarise(rows, refusals, chosen.skipped)
    facts = report_facts(options.dataset, audit.results.values(), [p.name for p in chosen.runnable])
    write_report(options.report_path, figures, rows, facts)
    summary = AuditSummary.of(figures, runs_of(audit, unrunnable, rows))
    if options.errata is None:
        return summary
    from pipeline.audit.errata import write_errata

    labels = {run_id: result.label for run_id, result in audit.results.items()}
    written = write_errata(options.errata, options.dataset, records, rows, labels)
    return summary.model_copy(update={"errata": str(written)})


def write_report(path: Path, figures: AuditFigures, rows: list[AuditRow], facts: ReportFacts) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(figures, rows, facts), encoding="utf-8")


def runs_of(audit: Audit, unrunnable: list[Unrunnable], rows: list[AuditRow]) -> AuditRuns:
    """The plan's runs: made, reused and saved; the labels left without a row; where the outputs went."""
    options, counts = audit.options, audit.counts
    matrix = plan_requests(audit.conversions, audit.profiles, audit.policy, options.repeats)
    exhaustive = executions(matrix) + audit.alternatives_planned + audit.seed_executions
    planned = {(c.record.record_id, p.name) for c, p in audit.pairs} | {
        (u.record.record_id, p.name) for u in unrunnable for p in audit.profiles
    }
    return AuditRuns(
        plan="exhaustive" if options.exhaustive else "adaptive",
        first_profiles={s: p.name for s, p in audit.first.items()},
        runs_planned=counts.planned,
        runs_reused=counts.reused,
        runs_executed=counts.executed,
        executions_planned=audit.executions,
        executions_exhaustive=exhaustive,
        executions_saved=exhaustive - audit.executions,
        seed_pinned_labels=audit.seed_pinned_labels,
        executions_seed_pinning=audit.seed_executions,
        not_audited=len(planned - {(r.record_id, r.profile) for r in rows}),
        sandbox_errors=counts.sandbox_errors,
        failed_batches=counts.failed_batches,
        failures=list(counts.failures),
        report=str(options.report_path),
        audit_table=str(audit.table.folder),
    )


class Audit:
    """One audit's rounds over one store: what it planned, the results it read, the rows it wrote."""

    def __init__(
        self,
        options: AuditOptions,
        store: Store,
        chosen: ChosenProfiles,
        conversions: list[Conversion],
        execute: Executor,
        rows_every_s: float = ROWS_WRITTEN_EVERY_S,
    ) -> None:
        self.options = options
        self.policy: LimitPolicy = options.limit_policy
        self.rows_every_s = rows_every_s
        self.chosen = chosen
        self.profiles = chosen.runnable
        self.conversions = conversions
        self.execute = execute
        self.table = store.table("audit", AuditRow, "audit_id")
        self.store = store
        earlier = list(self.table.records(where={"subset": sorted({c.record.subset for c in conversions})}))
        self.first = first_profiles(sorted({c.record.subset for c in conversions}), self.profiles, earlier)
        self.cpu_s = stored_cpu(earlier)
        self.conflicts = conflicts_of(conversions)
        self.results: dict[str, RunResult] = {}  # run id -> result, every round's
        self.answers: dict[str, RunResult] = {}  # answer key -> the result to use (verdicts.by_answer)
        self.parts_of: dict[str, tuple[str, ...]] = {}  # a part's run id -> its question's parts, in order
        self.pairs: list[Pair] = []
        self.counts = RunCounts()
        self.alternatives_planned = 0  # program executions (repeats count)
        self.seed_executions = 0  # the seed round's program executions
        self.seed_pinned_labels = 0  # labels the seed round reran
        self.executions = 0

    def run(self) -> list[AuditRow]:
        """Every label through its rounds (pipeline/audit/feed.py) in one job of the engine; every row."""
        workers = self.options.workers or available_cores()
        feed = LabelFeed(self, self.options.exhaustive, workers, self.rows_every_s, self.options.batch_size)
        feed.start()
        self.counts = self.counts.plus(self.execute(feed))
        feed.write_rows()
        return self.rows(self.conversions)

    def count_round(self, planned: Round, requests: list[RunRequest]) -> None:
        """What a label's round adds to the plan: its labels under profiles, its program executions (each
        run once, however many labels share it), and which round they belong to."""
        if planned.counted:
            self.pairs += [(c, p) for c, p in planned.pairs if c.candidate == 0]
        runs = executions(requests)
        self.executions += runs
        if not planned.counted:  # the seed round: its pinned profiles get no rows
            self.seed_executions += runs
            self.seed_pinned_labels += 1
        elif any(c.candidate != 0 for c, _ in planned.pairs):
            self.alternatives_planned += runs

    def rows(self, conversions: Iterable[Conversion]) -> list[AuditRow]:
        return audit_rows(conversions, self.profiles, self.answers, self.conflicts)

    def read(self, run_ids: list[str]) -> None:
        """The stored results of these runs (a sandbox error left none: that label waits for a rerun); a
        question whose parts have all landed is answered by them joined."""
        if not run_ids:
            return
        for result in self.store.runs.records(where={"run_id": run_ids}):
            self.results[result.run_id] = result
            keep_better(self.answers, result)
        for parts in {self.parts_of[run_id] for run_id in run_ids if run_id in self.parts_of}:
            if all(part in self.results for part in parts):
                keep_better(self.answers, joined_parts([self.results[part] for part in parts]))

    def split(self, requests: list[RunRequest]) -> list[RunRequest]:
        """Each request of several repeats as that many requests of one (``RunRequest.part``): a long
        label's repeats run side by side on whichever cores are free, not one after another in one batch
        at the audit's end, and the first part is the run a label's first round made already (reused,
        never run again). ``read`` joins the parts back into one result of that many repeats."""
        split: list[RunRequest] = []
        for request in requests:
            if request.repeats == 1:
                split.append(request)
                continue
            parts = [request.model_copy(update={"repeats": 1, "part": k}) for k in range(request.repeats)]
            ids = tuple(part.run_id for part in parts)
            self.parts_of.update(dict.fromkeys(ids, ids))
            split += parts
        return split

    def expected(self, pairs: list[Pair], requests: list[RunRequest]) -> dict[str, float]:
        """run id -> expected seconds (the longest of the labels sharing the run, times its repeats), for
        the order."""
        by_answer_s: dict[str, float] = {}
        for conversion, profile in pairs:
            for key in keys_of(conversion, profile):  # a probe (a mutant) takes as long as its program
                by_answer_s[key] = max(by_answer_s.get(key, 0.0), expected_seconds(conversion, self.cpu_s))
        return {r.run_id: by_answer_s.get(r.answers, 0.0) * r.repeats for r in requests}

    def learn_cpu(self, rows: list[AuditRow]) -> None:
        """What a label's runs took so far: its later rounds are ordered by it (``expected``), not by a
        guess from its size."""
        for row in rows:
            if row.run_id is not None:
                self.cpu_s[row.record_id] = max(self.cpu_s.get(row.record_id, 0.0), row.cpu_s)

    def identified(self, requests: list[RunRequest]) -> list[RunRequest]:
        """With the backend each profile runs on, as resolve_profiles chose, and its toolchain identity."""
        from sandboxes.identity import identify

        return identify(requests, self.options.backend)


def available_cores() -> int:
    """The engine's default width: this machine's cores (flows.runtime.default_workers)."""
    return max(1, os.cpu_count() or 1)


def executions(requests: Iterable[RunRequest]) -> int:
    """Program executions: a request repeated twice runs its program twice."""
    return sum(r.repeats for r in requests)


def limit_per_subset(records: list[ReleasedRecord], limit: int | None) -> list[ReleasedRecord]:
    """The first ``limit`` records of each subset (None: every one)."""
    if limit is None:
        return records
    seen: dict[str, int] = defaultdict(int)
    kept = []
    for record in records:
        if seen[record.subset] < limit:
            seen[record.subset] += 1
            kept.append(record)
    return kept
