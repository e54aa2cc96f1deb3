"""SURGE's released JSON -> runnable programs, through the one reader and each subset's spec.

Reading is `pipeline.subsets.load_release` (the one reader, every subset known); how a record becomes a
program is its subset's `to_program` (pipeline/subsets/<name>.py). Here only the audit's outcome of each:
a Conversion, an Unrunnable record (a row with its named cause), or a Refusal with the reason, so one bad
record never stops the audit.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.audit.rows import AuditClass, Conversion, Refusal, Unrunnable
from pipeline.errors import InputError
from pipeline.programs import describe_error
from pipeline.records import QuarantinedRecord
from pipeline.subsets import REGISTRY, load_release
from pipeline.subsets import Unrunnable as UnrunnableRecord
from sandboxes.languages import program_setting_refusal
from sources.surge_release import ReleasedRecord

Outcome = Conversion | Unrunnable | Refusal


def load_dataset(path: Path, subsets: set[str] | None = None) -> tuple[list[ReleasedRecord], list[Refusal]]:
    """Released records, and a refusal per entry the reader quarantined (with its reason)."""
    if not path.exists():
        raise InputError(
            f"no released SURGE data at {path}", hint="pass dataset/<subset>.json or the dataset/ folder"
        )
    records, quarantined = load_release(path, subsets)
    whole_files = [q for q in quarantined if not q.location.endswith("]")]
    if whole_files and not records:
        first = whole_files[0]
        raise InputError(
            f"cannot read {first.location}: {first.reason}", hint="is it one of SURGE's dataset/*.json?"
        )
    return records, [_refused(q) for q in quarantined]


def _refused(quarantined: QuarantinedRecord) -> Refusal:
    stem = Path(quarantined.location.split("[", 1)[0]).stem
    return Refusal(subset=stem, location=quarantined.location, reason=quarantined.reason)


def convert(record: ReleasedRecord) -> Outcome:
    spec = REGISTRY.get(record.subset)
    if spec is None:
        reason = f"unknown subset {record.subset!r} (known: {', '.join(REGISTRY)})"
        return Refusal(subset=record.subset, location=record.location, reason=reason, record=record)
    try:
        plan = spec.to_program(record)
    except UnrunnableRecord as error:
        language = record.language.value if record.language else "unknown"
        return Unrunnable(
            record=record, language=language, audit_class=AuditClass(error.cause), reason=str(error)
        )
    except ValueError as error:  # pydantic's ValidationError too: its first error, on one line
        reason = describe_error(error)
        return Refusal(subset=record.subset, location=record.location, reason=reason, record=record)
    # the plan's own program: a Conversion's `program` property builds a Candidate, validating it again
    if refusal := program_setting_refusal(plan.program, plan.setting):
        return Refusal(subset=record.subset, location=record.location, reason=refusal, record=record)
    return Conversion(record=record, plan=plan)


def convert_all(
    records: list[ReleasedRecord],
) -> tuple[list[Conversion], list[Unrunnable], list[Refusal]]:
    conversions: list[Conversion] = []
    unrunnable: list[Unrunnable] = []
    refusals: list[Refusal] = []
    for record in records:
        outcome = convert(record)
        if isinstance(outcome, Conversion):
            conversions.append(outcome)
        elif isinstance(outcome, Unrunnable):
            unrunnable.append(outcome)
        else:
            refusals.append(outcome)
    return conversions, unrunnable, refusals
