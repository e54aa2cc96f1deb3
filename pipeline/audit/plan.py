"""From conversions to run requests, and from run results to audit rows (no engine, no sandbox here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pipeline.audit.classify import classify
from pipeline.audit.metrics import score
from pipeline.audit.rows import REPRODUCED, AuditClass, AuditRow, Conversion, Refusal
from pipeline.leakage import find_leaks
from pipeline.records import EnvironmentProfile, Limits, QuarantinedRecord, RunRequest, RunResult

TEXT_CHARS = 4000  # observed / expected kept per row: enough to read, small enough for the table


def plan_requests(
    conversions: Iterable[Conversion], profiles: Iterable[EnvironmentProfile], limits: Limits, repeats: int
) -> list[RunRequest]:
    """One request per (record, profile); records sharing a program share a run id and run once."""
    requests: dict[str, RunRequest] = {}
    for profile in profiles:
        for conversion in conversions:
            request = RunRequest(
                program=conversion.program,
                setting=conversion.setting,
                profile=profile,
                limits=limits,
                repeats=repeats,
            )
            requests.setdefault(request.run_id, request)
    return list(requests.values())


def run_id_of(conversion: Conversion, profile: EnvironmentProfile) -> str:
    return RunRequest(program=conversion.program, setting=conversion.setting, profile=profile).run_id


def cpu_seconds(result: RunResult) -> float:
    return sum(p.cpu_user_s + p.cpu_sys_s for p in (result.compile, result.run) if p is not None)


def audit_row(conversion: Conversion, profile: EnvironmentProfile, result: RunResult) -> AuditRow:
    record = conversion.record
    verdict = classify(result, record.gt)
    metric, value = score(record, result.label)
    return AuditRow(
        record_id=record.record_id,
        subset=record.subset,
        index=record.index,
        location=record.location,
        language=conversion.language,
        profile=profile.name,
        run_id=result.run_id,
        verdict=result.verdict.value,
        audit_class=verdict.audit_class,
        metric=metric,
        score=None if verdict.audit_class is AuditClass.NOT_RUN else round(value, 6),
        reason=verdict.reason,
        evidence=verdict.evidence,
        cpu_s=round(cpu_seconds(result), 6),
        distinct_outputs=result.distinct_outputs,
        recorded_time_s=recorded_time(record.custom_features.get("time")),
        observed=result.label[:TEXT_CHARS],
        expected=record.gt[:TEXT_CHARS],
        leaks=tuple(find_leaks(_program_text(conversion), record.gt)),
    )


def recorded_time(value: object) -> float | None:
    """sc records store seconds as a float, tc as text: `"1.1037 seconds"`."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value.strip():
        try:
            return float(value.split()[0])
        except ValueError:
            return None
    return None


def _program_text(conversion: Conversion) -> str:
    return "\n".join(f.content for f in conversion.program.files)


def audit_rows(
    conversions: Iterable[Conversion],
    profiles: Iterable[EnvironmentProfile],
    results: Mapping[str, RunResult],
) -> list[AuditRow]:
    """Rows for every (record, profile) whose run is in `results` (by run id); others are left out."""
    rows = []
    for profile in profiles:
        for conversion in conversions:
            result = results.get(run_id_of(conversion, profile))
            if result is not None:
                rows.append(audit_row(conversion, profile, result))
    return rows


def refusal_record(refusal: Refusal) -> QuarantinedRecord:
    return QuarantinedRecord(
        stage="audit",
        source=f"surge-released/{refusal.record.subset}",
        location=refusal.record.location,
        reason=refusal.reason,
        raw=refusal.record.question[:2000],
    )


# ---------------------------------------------------------------------------------------------
# Several profiles
# ---------------------------------------------------------------------------------------------


def reproducing_profiles(rows: Iterable[AuditRow]) -> dict[str, list[str]]:
    """record location -> the profiles under which its label is reproduced (exactly or normalised)."""
    found: dict[str, list[str]] = {}
    for row in rows:
        names = found.setdefault(row.location, [])
        if row.audit_class in REPRODUCED:
            names.append(row.profile)
    return {location: sorted(set(names)) for location, names in found.items()}


def best_profile(rows: Iterable[AuditRow]) -> dict[str, object] | None:
    """The profile that reproduces the most labels (ties: higher mean score, then name)."""
    tally: dict[str, list[float]] = {}
    reproduced: dict[str, int] = {}
    for row in rows:
        tally.setdefault(row.profile, []).append(row.score or 0.0)
        reproduced[row.profile] = reproduced.get(row.profile, 0) + (row.audit_class in REPRODUCED)
    if not tally:
        return None
    ranking = sorted(tally, key=lambda name: (-reproduced[name], -sum(tally[name]) / len(tally[name]), name))
    return {
        "profile": ranking[0],
        "ranking": [
            {
                "profile": n,
                "reproduced": reproduced[n],
                "labels": len(tally[n]),
                "mean_score": round(sum(tally[n]) / len(tally[n]), 4),
            }
            for n in ranking
        ],
    }
