"""From run results to audit rows: one row per label and profile, classified and scored (no engine here).

Every map of results here is keyed by the question a run answers (``RunResult.answers``: program,
setting, profile), never by run id: run ids also hash the limits, repeats and toolchain, which a row does
not know, and one question may have several runs (a first single run, its repeats, a rerun under higher
limits); ``by_answer`` picks the one to use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pipeline.audit.causes import code_nondeterminism, conflicting_labels, run_to_run_causes
from pipeline.audit.checks import classify_check
from pipeline.audit.classify import Evidence, classify, compare_labels
from pipeline.audit.rows import CLASS_RANK, REPRODUCED, AuditClass, AuditRow, Conversion, Refusal, Unrunnable
from pipeline.audit.seeds import SEED_VALUES, PinnedRun, SeedTrial, pinned_profile, seed_variable
from pipeline.leakage import find_leaks
from pipeline.records import EnvironmentProfile, QuarantinedRecord, RunResult, Verdict, answer_key
from pipeline.scoring.by_subset import equal_under_metric, score

TEXT_CHARS = 4000  # observed / expected kept per row: enough to read, small enough for the table
LIMIT_VERDICTS = {Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT, Verdict.MEMORY_LIMIT, Verdict.OUTPUT_LIMIT}


def answer_key_of(conversion: Conversion, profile: EnvironmentProfile) -> str:
    """The key a (record, profile) looks its result up by: ``RunResult.answers``."""
    return answer_key(conversion.program.program_id, conversion.setting.setting_id, profile.profile_id)


def probe_keys(conversion: Conversion, profile: EnvironmentProfile) -> list[str]:
    """The keys of the probes a reading is judged with (a self-check's mutant), under a profile."""
    setting, profile_id = conversion.setting.setting_id, profile.profile_id
    return [answer_key(program.program_id, setting, profile_id) for program in conversion.probes]


def keys_of(conversion: Conversion, profile: EnvironmentProfile) -> list[str]:
    """Every result a reading's row needs under a profile: its own, then its probes'."""
    return [answer_key_of(conversion, profile), *probe_keys(conversion, profile)]


def ended_on_limit(result: RunResult) -> bool:
    return result.verdict in LIMIT_VERDICTS


def cpu_seconds(result: RunResult) -> float:
    return sum(p.cpu_user_s + p.cpu_sys_s for p in (result.compile, result.run) if p is not None)


def evidence_for(
    conversion: Conversion, result: RunResult, conflict: str = "", seed: SeedTrial | None = None
) -> Evidence:
    ruled_out = seed is not None and not seed.stable
    varied = result.distinct_outputs > 1
    return Evidence(
        repository=conversion.program.run_instruction is not None,
        missing=conversion.plan.missing,
        suspicions=tuple(code_nondeterminism(conversion.program)),
        varies_by=tuple(run_to_run_causes(conversion.program, seed_ruled_out=ruled_out)) if varied else (),
        seed=seed if varied else None,
        conflict=conflict,
        recorded_time_s=conversion.plan.recorded_time_s,
        cpu_limit_s=result.provenance.limits.run.cpu_s,
        equal_under_metric=equal_under_metric(conversion.record, result.label),
    )


def audit_row(
    conversion: Conversion,
    profile: EnvironmentProfile,
    result: RunResult,
    conflict: str = "",
    probes: list[RunResult] | None = None,
    seed: SeedTrial | None = None,
) -> AuditRow:
    record = conversion.record
    observed, distinct = result.label, result.distinct_outputs
    if conversion.plan.check is not None:  # a self-check: its label is the check's verdict
        mutant = probes[0] if probes else None
        verdict, outcomes = classify_check(conversion, conversion.plan.check, result, mutant)
        observed = outcomes[0].label
        # what the row counts is the check's verdicts, once each repeat's was kept (schema 5 on)
        distinct = len(outcomes) if result.other_runs else distinct
    else:
        verdict = classify(result, record.gt, evidence_for(conversion, result, conflict, seed))
    if conversion.repair and verdict.audit_class in REPRODUCED:
        note = f"cannot build as released; reproduced after the repair: {conversion.repair}"
        verdict = verdict.model_copy(update={"audit_class": AuditClass.RECONSTRUCTED, "reason": note})
    metric, value = score(record, observed)
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
        distinct_outputs=distinct,
        recorded_time_s=conversion.plan.recorded_time_s,
        observed=observed[:TEXT_CHARS],
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
    conflicts: Mapping[str, str] | None = None,
) -> list[AuditRow]:
    """Rows for every (record, profile) whose result is in `results` (by answer key, `by_answer`); others
    are left out.

    A record with several readings (argv candidates) gets the row of its best reading: the first
    reading's row unless another reproduces better; the reason says which reading was kept.
    """
    conversions = list(conversions)
    conflicts = conflicts_of(conversions) if conflicts is None else conflicts
    rows = []
    for profile in profiles:
        for conversion in conversions:
            conflict = conflicts.get(conversion.record.record_id, "")
            answered = [
                answered_row(c, profile, results, conflict) for c in [conversion, *conversion.alternatives()]
            ]
            tried = [row for row in answered if row is not None]
            if tried:
                rows.append(best_reading(tried))
    return rows


def answered_row(
    conversion: Conversion, profile: EnvironmentProfile, results: Mapping[str, RunResult], conflict: str
) -> AuditRow | None:
    """A reading's row under a profile, once its run and its probes' runs have all answered."""
    keys = keys_of(conversion, profile)
    if not all(key in results for key in keys):
        return None
    result = results[keys[0]]
    seed = seed_trial(conversion, profile, results) if result.distinct_outputs > 1 else None
    return audit_row(conversion, profile, result, conflict, [results[k] for k in keys[1:]], seed)


def seed_trial(
    conversion: Conversion, profile: EnvironmentProfile, results: Mapping[str, RunResult]
) -> SeedTrial | None:
    """The seed round's runs of a reading under a profile, once every pinned value has answered (None:
    its runtime has no seed to pin, or the round has not run)."""
    variable = seed_variable(conversion)
    if variable is None:
        return None
    runs = []
    for value in SEED_VALUES:
        pinned = results.get(answer_key_of(conversion, pinned_profile(profile, variable, value)))
        if pinned is None:
            return None
        reproduces = compare_labels(pinned.label, conversion.record.gt).audit_class in REPRODUCED
        runs.append(
            PinnedRun(
                value=value,
                run_id=pinned.run_id,
                repeats=pinned.repeats,
                distinct_outputs=pinned.distinct_outputs,
                label=pinned.label,
                reproduces=reproduces,
            )
        )
    return SeedTrial(variable=variable, runs=tuple(runs))


def best_reading(tried: list[AuditRow]) -> AuditRow:
    best = min(tried, key=lambda row: CLASS_RANK[row.audit_class])  # stable: the first reading on ties
    if len(tried) == 1:
        return best
    summary = ", ".join(f"{row.variant}: {row.audit_class.value}" for row in tried)
    note = f"kept '{best.variant}' of {len(tried)} readings ({summary})"
    return best.model_copy(update={"reason": f"{best.reason}; {note}" if best.reason else note})


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


def by_answer(results: Iterable[RunResult]) -> dict[str, RunResult]:
    """answer key -> the result to use, one per question (``RunResult.answers``): one that did not end on a
    limit if there is one (a rerun under higher limits is a second run id), then the one with the most
    repeats (the adaptive plan's single first run, then its repeats), else the last."""
    picked: dict[str, RunResult] = {}
    for result in results:
        keep_better(picked, result)
    return picked


def keep_better(picked: dict[str, RunResult], result: RunResult) -> None:
    """Add ``result`` to ``picked`` (answer key -> result, as ``by_answer`` builds it) if it is the one
    to use for its question: results read one batch at a time pick as all of them at once would."""
    kept = picked.get(result.answers)
    if kept is None or _better(result, kept):
        picked[result.answers] = result


def _better(result: RunResult, kept: RunResult) -> bool:
    if ended_on_limit(kept) != ended_on_limit(result):
        return ended_on_limit(kept)
    return result.repeats >= kept.repeats
