"""An errata of the audited release: what a benchmark's authors can apply. Labels are audited to be
fixed, and the evidence in a report alone fixes nothing.

`write_errata(DIR, ...)` writes
- ``errata.jsonl``: one entry per label that is not reproduced under any profile (explained or
  contradicted; a label not run says nothing and is left out): where it is (subset, index, item id),
  its class, the evidence, the label our best environment gives and that environment;
- ``dataset/<subset>.json``: the audited files in SURGE's format (same records, order, keys and layout,
  ``json.dump(indent=4, ensure_ascii=True)``), where a label our run contradicts is replaced by ours and
  the record gains a ``corrections`` note; a row left alone is byte for byte as released;
- ``<subset>.md``: a short summary per subset.

Only a contradiction we can stand behind changes a label: a ``mismatch`` (or an ``empty_label``) whose
run ended normally and whose repeats agreed. An explained class (timeout, drift, non-determinism, a
build the release cannot make) is listed, never rewritten: the label may be right for its environment.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pipeline.audit.rows import CLASS_RANK, REPRODUCED, AuditClass, AuditRow
from pipeline.export.surge_format import dump_records
from pipeline.records import Frozen
from sources.surge_release import ReleasedRecord

CORRECTABLE = (AuditClass.MISMATCH, AuditClass.EMPTY_LABEL)
EVIDENCE_CHARS = 2000


class Erratum(Frozen):
    """One label the audit could not reproduce, and what our best environment says instead."""

    subset: str
    index: int
    item_id: str
    location: str
    audit_class: str
    reason: str
    evidence: str
    released_label: str
    our_label: str | None  # None: no run gave one (cannot build, not run, ...)
    environment: str | None  # the profile of the row kept, with its run id
    corrected: bool


def label_rows(rows: Iterable[AuditRow]) -> dict[str, AuditRow]:
    """record id -> the row that speaks for the label: its best class, then its highest score."""
    best: dict[str, AuditRow] = {}
    for row in rows:
        kept = best.get(row.record_id)
        if kept is None or _rank(row) < _rank(kept):
            best[row.record_id] = row
    return best


def _rank(row: AuditRow) -> tuple[int, float]:
    return CLASS_RANK[row.audit_class], -(row.score or 0.0)


def errata_of(
    records: Iterable[ReleasedRecord], rows: Iterable[AuditRow], labels: Mapping[str, str]
) -> list[Erratum]:
    """An erratum per audited label neither reproduced nor left unrun (``labels``: run id -> our label)."""
    best = label_rows(rows)
    found = []
    for record in records:
        row = best.get(record.record_id)
        if row is None or row.audit_class in REPRODUCED or row.audit_class is AuditClass.NOT_RUN:
            continue
        ours = labels.get(row.run_id) if row.run_id else None
        found.append(
            Erratum(
                subset=record.subset,
                index=record.index,
                item_id=record.item_id,
                location=record.location,
                audit_class=row.audit_class.value,
                reason=row.reason,
                evidence=row.evidence[:EVIDENCE_CHARS],
                released_label=record.gt,
                our_label=ours,
                environment=f"{row.profile} (run {row.run_id})" if row.run_id else row.profile,
                corrected=ours is not None and correctable(row),
            )
        )
    return found


def correctable(row: AuditRow) -> bool:
    """Our label replaces the released one only where the run ended normally and its repeats agreed."""
    return row.audit_class in CORRECTABLE and row.verdict == "ok" and row.distinct_outputs == 1


def write_errata(
    folder: Path,
    dataset: Path,
    records: list[ReleasedRecord],
    rows: list[AuditRow],
    labels: Mapping[str, str],
) -> Path:
    """errata.jsonl, the corrected dataset and a summary per subset under ``folder``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    errata = errata_of(records, rows, labels)
    lines = "".join(json.dumps(e.model_dump(), ensure_ascii=False) + "\n" for e in errata)
    (folder / "errata.jsonl").write_text(lines, encoding="utf-8")
    write_corrected(folder / "dataset", dataset, records, errata)
    audited = {row.record_id for row in rows}
    for subset, mine in _by_subset([r for r in records if r.record_id in audited], errata).items():
        (folder / f"{subset}.md").write_text(subset_summary(subset, mine), encoding="utf-8")
    return folder


def _by_subset(records: Iterable[ReleasedRecord], errata: list[Erratum]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, dict[str, Any]] = defaultdict(lambda: {"labels": 0, "errata": []})
    for record in records:
        grouped[record.subset]["labels"] += 1
    for erratum in errata:
        grouped[erratum.subset]["errata"].append(erratum)
    return dict(grouped)


def source_file(dataset: Path, record: ReleasedRecord) -> Path:
    """The released file a record was read from (its location names the file)."""
    return dataset if dataset.is_file() else dataset / Path(record.location.rsplit("[", 1)[0]).name


def write_corrected(
    out: Path, dataset: Path, records: list[ReleasedRecord], errata: list[Erratum]
) -> dict[str, Path]:
    """Each audited file again in SURGE's format, corrected labels swapped in, each with its note."""
    fixes = {e.location: e for e in errata if e.corrected}
    files = {source_file(dataset, r): r for r in records}
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for path, sample in files.items():
        released = json.loads(path.read_text(encoding="utf-8"))
        prefix = sample.location.rsplit("[", 1)[0]
        for index, entry in enumerate(released):
            fix = fixes.get(f"{prefix}[{index}]")
            if fix is not None and isinstance(entry, dict) and fix.our_label is not None:
                entry["gt"] = as_released(fix.our_label, fix.released_label)
                entry["corrections"] = correction_note(fix)
        target = out / path.name
        target.write_text(dump_records(released), encoding="ascii")
        written[path.name] = target
    return written


def as_released(ours: str, released: str) -> str:
    """Our label ending as the released file's labels end: ml, cl and sc labels were stripped of their
    last newline, bg and dr kept it; the released label being corrected says which."""
    trailing = released[len(released.rstrip("\n")) :] if released else ""
    return ours.rstrip("\n") + trailing


def correction_note(erratum: Erratum) -> dict[str, Any]:
    return {
        "field": "gt",
        "released": erratum.released_label,
        "class": erratum.audit_class,
        "reason": erratum.reason,
        "environment": erratum.environment,
        "by": "surge audit",
    }


def subset_summary(subset: str, figures: dict[str, Any]) -> str:
    errata: list[Erratum] = figures["errata"]
    classes = Counter(e.audit_class for e in errata)
    corrected = sum(e.corrected for e in errata)
    lines = [
        f"# Errata of SURGE's {subset}",
        "",
        f"{figures['labels']} labels audited; {len(errata)} not reproduced under any profile; "
        f"{corrected} corrected in `dataset/` (contradicted by a run that ended normally, repeats agreeing).",
        "",
        "| class | labels |",
        "|---|---|",
        *(f"| {klass} | {count} |" for klass, count in sorted(classes.items())),
        "",
        "| location | class | corrected | reason or diff |",
        "|---|---|---|---|",
        *(_row(e) for e in errata),
    ]
    return "\n".join(lines) + "\n"


def _row(erratum: Erratum) -> str:
    corrected = "yes" if erratum.corrected else "no"
    why = _cell(erratum.reason or erratum.evidence)
    return f"| {erratum.location} | {erratum.audit_class} | {corrected} | {why} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:200]
