"""From conversions to run requests, and from run results to audit rows (no engine, no sandbox here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import Field

from pipeline.audit.causes import code_nondeterminism, conflicting_labels
from pipeline.audit.classify import Evidence, classify
from pipeline.audit.rows import CLASS_RANK, REPRODUCED, AuditClass, AuditRow, Conversion, Refusal, Unrunnable
from pipeline.leakage import find_leaks
from pipeline.records import (
    EnvironmentProfile,
    Frozen,
    Limits,
    QuarantinedRecord,
    RunRequest,
    RunResult,
    Verdict,
    answer_key,
)
from pipeline.scoring.metrics import score
from pipeline.subsets import ProgramPlan

TEXT_CHARS = 4000  # observed / expected kept per row: enough to read, small enough for the table
LIMIT_VERDICTS = {Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT}


class LimitPolicy(Frozen):
    """The run's limits, raised for a record that says how long it took when its label was made (issue 15:
    tc labels recorded at 12 s and 143 s ended as timeouts under a flat 10 s)."""

    base: Limits = Limits()
    margin: float = Field(default=2.0, gt=0, description="recorded time x margin = the run's CPU limit")
    cap_s: float = Field(default=300.0, gt=0, description="never more CPU seconds than this per run")

    def for_time(self, recorded_time_s: float | None) -> Limits:
        run = self.base.run
        if recorded_time_s is None or recorded_time_s * self.margin <= run.cpu_s:
            return self.base
        cpu_s = min(self.cap_s, recorded_time_s * self.margin + 1.0)
        wall_s = max(run.wall_s, 2.0 * cpu_s)
        return self.base.model_copy(update={"run": run.model_copy(update={"cpu_s": cpu_s, "wall_s": wall_s})})

    def for_plan(self, plan: ProgramPlan) -> Limits:
        """A run instruction that builds (rl: `g++ *.cpp -o main`, `make`) compiles inside the run phase:
        it gets the compile phase's limits, so a six-file build on a loaded machine is not a timeout."""
        limits = self.for_time(plan.recorded_time_s)
        if plan.program.run_instruction is None:
            return limits
        run, build = limits.run, limits.compile
        raised = {"cpu_s": max(run.cpu_s, build.cpu_s), "wall_s": max(run.wall_s, build.wall_s)}
        return limits.model_copy(update={"run": run.model_copy(update=raised)})


def request_for(
    conversion: Conversion, profile: EnvironmentProfile, policy: LimitPolicy, repeats: int
) -> RunRequest:
    return RunRequest(
        program=conversion.program,
        setting=conversion.setting,
        profile=profile,
        limits=policy.for_plan(conversion.plan),
        repeats=repeats,
    )


def plan_requests(
    conversions: Iterable[Conversion],
    profiles: Iterable[EnvironmentProfile],
    limits: Limits | LimitPolicy,
    repeats: int,
) -> list[RunRequest]:
    """One request per (record, profile); records sharing a program share a run id and run once."""
    policy = limits if isinstance(limits, LimitPolicy) else LimitPolicy(base=limits)
    requests: dict[str, RunRequest] = {}
    for profile in profiles:
        for conversion in conversions:
            request = request_for(conversion, profile, policy, repeats)
            requests.setdefault(request.run_id, request)
    return list(requests.values())


def run_id_of(conversion: Conversion, profile: EnvironmentProfile) -> str:
    """The key a (record, profile) looks its result up by: ``RunResult.answers`` (run ids also hash the
    limits, repeats and toolchain, issue 10, which a row does not know)."""
    return answer_key(conversion.program.program_id, conversion.setting.setting_id, profile.profile_id)


def ended_on_limit(result: RunResult) -> bool:
    return result.verdict in LIMIT_VERDICTS


def cpu_seconds(result: RunResult) -> float:
    return sum(p.cpu_user_s + p.cpu_sys_s for p in (result.compile, result.run) if p is not None)


def evidence_for(conversion: Conversion, result: RunResult, conflict: str = "") -> Evidence:
    return Evidence(
        repository=conversion.program.run_instruction is not None,
        missing=conversion.plan.missing,
        suspicions=tuple(code_nondeterminism(conversion.program)),
        conflict=conflict,
        recorded_time_s=conversion.plan.recorded_time_s,
        cpu_limit_s=result.provenance.limits.run.cpu_s,
    )


def audit_row(
    conversion: Conversion, profile: EnvironmentProfile, result: RunResult, conflict: str = ""
) -> AuditRow:
    record = conversion.record
    verdict = classify(result, record.gt, evidence_for(conversion, result, conflict))
    metric, value = score(record, result.label)
    return AuditRow(
        record_id=record.record_id,
        subset=record.subset,
        index=record.index,
        location=record.location,
        language=conversion.language,
        profile=profile.name,
        run_id=result.run_id,
        variant=conversion.variant,
        verdict=result.verdict.value,
        audit_class=verdict.audit_class,
        metric=metric,
        score=None if verdict.audit_class is AuditClass.NOT_RUN else round(value, 6),
        reason=verdict.reason,
        evidence=verdict.evidence,
        cpu_s=round(cpu_seconds(result), 6),
        run_cpu_limit_s=result.provenance.limits.run.cpu_s,
        distinct_outputs=result.distinct_outputs,
        recorded_time_s=conversion.plan.recorded_time_s,
        observed=result.label[:TEXT_CHARS],
        expected=record.gt[:TEXT_CHARS],
        leaks=tuple(find_leaks(_program_text(conversion), record.gt)),
    )


def _program_text(conversion: Conversion) -> str:
    return "\n".join(f.content for f in conversion.program.files)


def conflicts_of(conversions: Iterable[Conversion]) -> dict[str, str]:
    return conflicting_labels(
        (c.record.record_id, c.record.location, f"{c.program.program_id}/{c.setting.setting_id}", c.record.gt)
        for c in conversions
    )


def audit_rows(
    conversions: Iterable[Conversion],
    profiles: Iterable[EnvironmentProfile],
    results: Mapping[str, RunResult],
) -> list[AuditRow]:
    """Rows for every (record, profile) whose run is in `results` (by run id); others are left out.

    A record with several readings (argv candidates) gets the row of its best reading: the first
    reading's row unless another reproduces better; the reason says which reading was kept.
    """
    conversions = list(conversions)
    conflicts = conflicts_of(conversions)
    results = {result.answers: result for result in results.values()}
    rows = []
    for profile in profiles:
        for conversion in conversions:
            tried = [
                audit_row(c, profile, results[run_id_of(c, profile)], conflicts.get(c.record.record_id, ""))
                for c in [conversion, *conversion.alternatives()]
                if run_id_of(c, profile) in results
            ]
            if tried:
                rows.append(best_reading(tried))
    return rows


def best_reading(tried: list[AuditRow]) -> AuditRow:
    best = min(tried, key=lambda row: CLASS_RANK[row.audit_class])  # stable: the first reading on ties
    if len(tried) == 1:
        return best
    summary = ", ".join(f"{row.variant}: {row.audit_class.value}" for row in tried)
    note = f"kept '{best.variant}' of {len(tried)} readings ({summary})"
    return best.model_copy(update={"reason": f"{best.reason}; {note}" if best.reason else note})


def needs_alternatives(conversion: Conversion, rows: Iterable[AuditRow]) -> bool:
    """Try a record's other readings only where it has some and its first reading did not reproduce."""
    if len(conversion.plan.candidates()) < 2:
        return False
    mine = [r for r in rows if r.record_id == conversion.record.record_id]
    return not mine or any(r.audit_class not in REPRODUCED for r in mine)


def alternative_requests(
    conversions: Iterable[Conversion],
    rows: Iterable[AuditRow],
    profiles: Iterable[EnvironmentProfile],
    policy: LimitPolicy,
    repeats: int,
) -> list[RunRequest]:
    rows = list(rows)
    pending = [alt for c in conversions if needs_alternatives(c, rows) for alt in c.alternatives()]
    return plan_requests(pending, profiles, policy, repeats)


def unrunnable_rows(
    unrunnable: Iterable[Unrunnable], profiles: Iterable[EnvironmentProfile]
) -> list[AuditRow]:
    """A row per profile for each record that cannot run as released, classed by its named cause."""
    rows = []
    for profile in profiles:
        for item in unrunnable:
            record = item.record
            metric, _ = score(record, "")
            rows.append(
                AuditRow(
                    record_id=record.record_id,
                    subset=record.subset,
                    index=record.index,
                    location=record.location,
                    language=item.language,
                    profile=profile.name,
                    audit_class=item.audit_class,
                    metric=metric,
                    score=None,
                    reason=item.reason,
                    expected=record.gt[:TEXT_CHARS],
                )
            )
    return rows


def refusal_record(refusal: Refusal) -> QuarantinedRecord:
    return QuarantinedRecord(
        stage="audit",
        source=f"surge-released/{refusal.subset}",
        location=refusal.location,
        reason=refusal.reason,
        raw=refusal.record.question[:2000] if refusal.record else "",
    )


# ---------------------------------------------------------------------------------------------
# Several profiles
# ---------------------------------------------------------------------------------------------


def best_rows(rows: Iterable[AuditRow]) -> dict[str, AuditRow]:
    """record id -> its best row over every profile (CLASS_RANK order)."""
    best: dict[str, AuditRow] = {}
    for row in rows:
        kept = best.get(row.record_id)
        if kept is None or CLASS_RANK[row.audit_class] < CLASS_RANK[kept.audit_class]:
            best[row.record_id] = row
    return best


def reproducing_profiles(rows: Iterable[AuditRow]) -> dict[str, list[str]]:
    """record location -> the profiles under which its label is reproduced (exactly or normalised)."""
    found: dict[str, list[str]] = {}
    for row in rows:
        names = found.setdefault(row.location, [])
        if row.audit_class in REPRODUCED:
            names.append(row.profile)
    return {location: sorted(set(names)) for location, names in found.items()}


def best_profile(rows: Iterable[AuditRow]) -> dict[str, Any] | None:
    """The profile that reproduces the most labels (ties: fewer unexplained, higher mean score, name)."""
    tally: dict[str, list[float]] = {}
    reproduced: dict[str, int] = {}
    unexplained: dict[str, int] = {}
    for row in rows:
        tally.setdefault(row.profile, []).append(row.score or 0.0)
        reproduced[row.profile] = reproduced.get(row.profile, 0) + (row.audit_class in REPRODUCED)
        unexplained[row.profile] = unexplained.get(row.profile, 0) + (row.audit_class is AuditClass.MISMATCH)
    if not tally:
        return None

    def mean(name: str) -> float:
        return sum(tally[name]) / len(tally[name])

    ranking = sorted(tally, key=lambda n: (-reproduced[n], unexplained[n], -mean(n), n))
    top = ranking[0]
    return {
        "profile": top,
        # profiles that reproduce and leave unexplained as many labels as the best (the name breaks the tie)
        "tied": [
            n for n in ranking if (reproduced[n], unexplained[n]) == (reproduced[top], unexplained[top])
        ],
        "ranking": [
            {
                "profile": n,
                "reproduced": reproduced[n],
                "unexplained": unexplained[n],
                "labels": len(tally[n]),
                "mean_score": round(mean(n), 4),
            }
            for n in ranking
        ],
    }


def pick_stored(results: Iterable[RunResult]) -> dict[str, RunResult]:
    """run id -> the stored result to use, one per question (``RunResult.answers``): one that did not end
    on a limit if there is one, else the last (a rerun under higher limits is a second run id)."""
    picked: dict[str, RunResult] = {}
    for result in results:
        kept = picked.get(result.answers)
        if kept is None or ended_on_limit(kept):
            picked[result.answers] = result
    return {result.run_id: result for result in picked.values()}
