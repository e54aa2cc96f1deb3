"""The audit's rounds over an engine the caller gives: `run_audit(options, execute) -> AuditSummary`
(the stage, pipeline/stages/audit.py, gives it Prefect's; a test, a fake backend).

Rounds, adaptive by default, so that the audit's cost follows what is left to explain rather than
labels × profiles:
1. each label once (one repeat) under its subset's first profile (`plan.first_profiles`);
2. the labels that did not reproduce: repeated under every profile (to tell non-determinism and find
   the environment that explains them);
3. the labels that still did not reproduce everywhere: their other readings (argv), under every profile;
4. the labels whose own repeats disagreed, in a language whose runtime seed can be pinned from outside
   (PYTHONHASHSEED): their reading again with the seed pinned to a few values (pipeline/audit/seeds.py).
`exhaustive` keeps the matrix: every label under every profile with its repeats, then rounds 3 and 4.
Each round runs its longest programs first, in waves; after each wave the rows of the labels it finished
(and that no later round revisits) are appended to the audit table, so a killed audit keeps them.

The engine is the caller's: ``execute(requests, expected_s)`` runs what the store does not hold yet and
returns what it did (``Executed``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from pipeline.audit.convert import convert_all, load_dataset
from pipeline.audit.figures import AuditFigures, summarise
from pipeline.audit.html import ReportFacts, render_html, report_facts
from pipeline.audit.plan import (
    LimitPolicy,
    Pair,
    alternative_pairs,
    every_profile,
    expected_seconds,
    first_profiles,
    longest_first,
    plan_pairs,
    plan_requests,
    stored_cpu,
    waves,
)
from pipeline.audit.profiles import ChosenProfiles, resolve_profiles
from pipeline.audit.rows import REPRODUCED, AuditClass, AuditRow, Conversion, Unrunnable
from pipeline.audit.seeds import SEED_REPEATS, awaits_pinning, seed_pairs
from pipeline.audit.summary import AuditOptions, AuditRuns, AuditSummary, Executed, RunCounts
from pipeline.audit.verdicts import (
    audit_rows,
    by_answer,
    conflicts_of,
    keys_of,
    refusal_record,
    unrunnable_rows,
)
from pipeline.records import RunRequest, RunResult
from pipeline.store import Store
from sources.surge_release import ReleasedRecord

Executor = Callable[[list[RunRequest], Mapping[str, float]], Executed]
Final = Callable[[Conversion, list[AuditRow]], bool]
# Rows reach the table after each wave: a round is split in about this many waves, none smaller than
# WAVE_MIN_RUNS (each wave is one job of the engine, whose start costs about a second).
WAVES_PER_ROUND = 4
WAVE_MIN_RUNS = 64


def run_audit(options: AuditOptions, execute: Executor, *, wave_runs: int | None = None) -> AuditSummary:
    """Audit the dataset the options name on the caller's engine: the rows go to the store's audit table,
    the HTML report and the errata (if asked) are written. ``wave_runs``: runs between two writes of
    finished rows (None: about a quarter of a round)."""
    records, refusals = load_dataset(options.dataset, options.subsets)
    conversions, unrunnable, refused = convert_all(limit_per_subset(records, options.limit))
    refusals += refused
    chosen = resolve_profiles(options.profiles, options.backend)
    store = Store(options.store)
    store.quarantine.append_new(refusal_record(r) for r in refusals)
    audit = Audit(options, store, chosen, conversions, execute, wave_runs)
    rows = audit.exhaustive() if options.exhaustive else audit.adaptive()
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
        wave_runs: int | None = None,
    ) -> None:
        self.options = options
        self.policy: LimitPolicy = options.limit_policy
        self.wave_runs = wave_runs
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
        self.pairs: list[Pair] = []
        self.counts = RunCounts()
        self.alternatives_planned = 0  # program executions (repeats count)
        self.seed_executions = 0  # the seed round's program executions
        self.seed_pinned_labels = 0  # labels the seed round reran
        self.executions = 0

    def adaptive(self) -> list[AuditRow]:
        first = [(c, self.first[c.record.subset]) for c in self.conversions]
        rows = self.round(first, 1, final=lambda c, mine: any(r.audit_class in REPRODUCED for r in mine))
        settled = {r.record_id for r in rows if r.audit_class in REPRODUCED}
        # A missing tool is not a disagreement: no point repeating it under the same profile.
        missing = {r.record_id for r in rows if r.audit_class is AuditClass.NOT_RUN}
        left = [c for c in self.conversions if c.record.record_id not in settled]
        pairs = [
            (c, p)
            for c, p in every_profile(left, self.profiles)
            if not (c.record.record_id in missing and p == self.first[c.record.subset])
        ]
        self.round(pairs, self.options.repeats, final=self.no_alternatives)
        self.alternatives(left)
        return self.pin_seeds(left)

    def exhaustive(self) -> list[AuditRow]:
        pairs = every_profile(self.conversions, self.profiles)
        self.round(pairs, self.options.repeats, final=self.no_alternatives)
        self.alternatives(self.conversions)
        return self.pin_seeds(self.conversions)

    def alternatives(self, conversions: list[Conversion]) -> None:
        """Round 3: other readings of the labels that did not reproduce everywhere."""
        pairs = alternative_pairs(conversions, self.rows(conversions), self.profiles)
        self.alternatives_planned = executions(plan_pairs(pairs, self.policy, self.options.repeats))
        self.round(pairs, self.options.repeats, final=lambda c, mine: not awaits_pinning(c, mine))

    def pin_seeds(self, conversions: list[Conversion]) -> list[AuditRow]:
        """Round 4: the labels whose repeats disagreed, again with their runtime's seed pinned (each value
        repeated); then every row."""
        pairs = seed_pairs(conversions, self.rows(conversions), self.profiles)
        self.seed_executions = executions(plan_pairs(pairs, self.policy, SEED_REPEATS))
        self.seed_pinned_labels = len({c.record.record_id for c, _ in pairs})
        self.round(pairs, SEED_REPEATS, final=lambda c, mine: True, counted=False)
        return self.rows(self.conversions)

    def no_alternatives(self, conversion: Conversion, mine: list[AuditRow]) -> bool:
        """A label is final after round 2 when no other reading is left to try, and no seed to pin."""
        if awaits_pinning(conversion, mine):
            return False
        return len(conversion.plan.candidates()) < 2 or all(r.audit_class in REPRODUCED for r in mine)

    def round(self, pairs: list[Pair], repeats: int, final: Final, counted: bool = True) -> list[AuditRow]:
        """Run the pairs, longest first, in waves; write each finished, final label's rows after its wave.
        Returns the rows of the round's labels. ``counted``: its pairs are labels under profiles that get
        rows (the seed round's pinned profiles get none)."""
        if counted:
            self.pairs += [(c, p) for c, p in pairs if c.candidate == 0]
        requests = self.identified(plan_pairs(pairs, self.policy, repeats))
        self.executions += executions(requests)
        expected_s = self.expected(pairs, requests)
        ordered = longest_first(requests, expected_s)
        waiting = answers_by_record(pairs)
        done: set[str] = set()  # answer keys this round's runs answered
        size = self.wave_runs or max(WAVE_MIN_RUNS, -(-len(ordered) // WAVES_PER_ROUND))
        for wave in waves(ordered, size):
            self.counts = self.counts.plus(self.execute(wave, expected_s))
            self.read([r.run_id for r in wave])
            done |= {r.answers for r in wave if r.run_id in self.results}
            ids = {record_id for record_id, keys in waiting.items() if keys <= done}
            waiting = {record_id: keys for record_id, keys in waiting.items() if record_id not in ids}
            self.write_final([c for c in self.conversions if c.record.record_id in ids], final)
        return self.rows([c for c, _ in pairs])

    def write_final(self, finished: list[Conversion], final: Final) -> None:
        rows = self.rows(finished)
        mine: dict[str, list[AuditRow]] = defaultdict(list)
        for row in rows:
            mine[row.record_id].append(row)
        keep = {c.record.record_id for c in finished if final(c, mine[c.record.record_id])}
        self.table.append_new(r for r in rows if r.record_id in keep)

    def rows(self, conversions: Iterable[Conversion]) -> list[AuditRow]:
        results = by_answer(self.results.values())
        return audit_rows(conversions, self.profiles, results, self.conflicts)

    def read(self, run_ids: list[str]) -> None:
        """The stored results of these runs (a sandbox error left none: that label waits for a rerun)."""
        if run_ids:
            for result in self.store.runs.records(where={"run_id": run_ids}):
                self.results[result.run_id] = result

    def expected(self, pairs: list[Pair], requests: list[RunRequest]) -> dict[str, float]:
        """run id -> expected seconds (the longest of the labels sharing the run), for the order."""
        by_answer_s: dict[str, float] = {}
        for conversion, profile in pairs:
            for key in keys_of(conversion, profile):  # a probe (a mutant) takes as long as its program
                by_answer_s[key] = max(by_answer_s.get(key, 0.0), expected_seconds(conversion, self.cpu_s))
        return {r.run_id: by_answer_s.get(r.answers, 0.0) for r in requests}

    def identified(self, requests: list[RunRequest]) -> list[RunRequest]:
        """With the backend each profile runs on, as resolve_profiles chose, and its toolchain identity."""
        from sandboxes.identity import identify

        return identify(requests, self.options.backend)


def executions(requests: Iterable[RunRequest]) -> int:
    """Program executions: a request repeated twice runs its program twice."""
    return sum(r.repeats for r in requests)


def answers_by_record(pairs: Iterable[Pair]) -> dict[str, set[str]]:
    """record id -> the answer keys its label waits for in a round (every reading, every profile)."""
    waiting: dict[str, set[str]] = defaultdict(set)
    for conversion, profile in pairs:
        waiting[conversion.record.record_id].update(keys_of(conversion, profile))
    return dict(waiting)


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
