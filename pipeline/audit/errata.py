"""An errata of the audited release: what a benchmark's authors can apply. Labels are audited to be
fixed, and the evidence in a report alone fixes nothing.

`write_errata(DIR, ...)` writes
- ``items.jsonl``: every audited label with its status (``kept``, ``corrected``, ``flagged``:
  pipeline/subsets/corrections.py), class and evidence;
- ``errata.jsonl``: the labels that are not kept (corrected or flagged): where each is (subset, index, item
  id), its class, the evidence, the label our best environment gives and that environment;
- ``dataset/<file>``: the audited files in their own format, written by the subset's writer (SURGE's JSON
  list by default: same records, order, keys and layout, ``json.dump(indent=4, ensure_ascii=True)``), where
  a label our run contradicts is replaced by ours with a note; a record left alone is as released;
- ``<subset>.md``: a short summary per subset, and per language where a subset has several.

Only a contradiction we can stand behind changes a label: a ``mismatch`` (or an ``empty_label``) whose
run ended normally and whose repeats agreed, in a subset whose label is the output. An explained class
(timeout, drift, non-determinism, a build the release cannot make, a vacuous check) is flagged, never
rewritten: the label may be right for its environment. A failed self-check is flagged too: the run says
the check fails, not what its expected value should be.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pipeline.audit.rows import CLASS_RANK, REPRODUCED, AuditClass, AuditRow
from pipeline.export.surge_format import dump_records
from pipeline.records import LabelProtocol
from pipeline.subsets import REGISTRY
from pipeline.subsets.corrections import DatasetWriter, Erratum, Status
from sources.surge_release import ReleasedRecord

CORRECTABLE = (AuditClass.MISMATCH, AuditClass.EMPTY_LABEL)
EVIDENCE_CHARS = 2000

__all__ = ["Erratum", "errata_of", "write_errata"]


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
    """An entry per audited label, with its status (``labels``: run id -> our label)."""
    best = label_rows(rows)
    return [erratum(record, best[record.record_id], labels) for record in records if record.record_id in best]


def erratum(record: ReleasedRecord, row: AuditRow, labels: Mapping[str, str]) -> Erratum:
    # A self-check's label is its verdict (the row's observed), not the streams its run wrote.
    ours = row.observed if self_checking(record) else labels.get(row.run_id) if row.run_id else None
    corrected = ours is not None and correctable(record, row)
    return Erratum(
        subset=record.subset,
        index=record.index,
        item_id=record.item_id,
        location=record.location,
        language=row.language,
        status=status_of(row, corrected),
        audit_class=row.audit_class.value,
        reason=row.reason,
        evidence=row.evidence[:EVIDENCE_CHARS],
        released_label=record.gt,
        our_label=ours,
        environment=f"{row.profile} (run {row.run_id})" if row.run_id else row.profile,
        corrected=corrected,
    )


def status_of(row: AuditRow, corrected: bool) -> Status:
    if corrected:
        return "corrected"
    if row.audit_class in REPRODUCED or row.audit_class is AuditClass.NOT_RUN:
        return "kept"  # a label not run here says nothing against it: the class says it was not run
    return "flagged"


def correctable(record: ReleasedRecord, row: AuditRow) -> bool:
    """Our label replaces the released one only where the run ended normally and its repeats agreed, and
    where the label is the output (a self-check's run says the check fails, not what it should expect)."""
    return (
        not self_checking(record)
        and row.audit_class in CORRECTABLE
        and row.verdict == "ok"
        and row.distinct_outputs == 1
    )


def self_checking(record: ReleasedRecord) -> bool:
    spec = REGISTRY.get(record.subset)
    return spec is not None and spec.protocol is LabelProtocol.SELF_CHECK


def write_errata(
    folder: Path,
    dataset: Path,
    records: list[ReleasedRecord],
    rows: list[AuditRow],
    labels: Mapping[str, str],
) -> Path:
    """items.jsonl, errata.jsonl, the corrected dataset and a summary per subset under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    items = errata_of(records, rows, labels)
    (folder / "items.jsonl").write_text(_jsonl(items), encoding="utf-8")
    (folder / "errata.jsonl").write_text(_jsonl(e for e in items if e.status != "kept"), encoding="utf-8")
    write_corrected(folder / "dataset", dataset, records, items)
    by_subset: dict[str, list[Erratum]] = defaultdict(list)
    for item in items:
        by_subset[item.subset].append(item)
    for subset, mine in by_subset.items():
        (folder / f"{subset}.md").write_text(subset_summary(subset, mine), encoding="utf-8")
    return folder


def _jsonl(entries: Iterable[Erratum]) -> str:
    return "".join(json.dumps(e.model_dump(), ensure_ascii=False) + "\n" for e in entries)


def source_file(dataset: Path, record: ReleasedRecord) -> Path:
    """The released file a record was read from (its location names the file, before ``[index]`` or
    ``:line``)."""
    if dataset.is_file():
        return dataset
    name = Path(record.location.rsplit("[", 1)[0].rsplit(":", 1)[0]).name
    return dataset / name


def write_corrected(
    out: Path, dataset: Path, records: list[ReleasedRecord], items: list[Erratum]
) -> dict[str, Path]:
    """Each audited file again, in its subset's own format (its spec's writer, else SURGE's JSON list)."""
    by_record = {(e.subset, e.location): e for e in items}
    files: dict[Path, dict[int, Erratum]] = defaultdict(dict)
    writers: dict[Path, DatasetWriter] = {}
    for record in records:
        path = source_file(dataset, record)
        spec = REGISTRY.get(record.subset)
        writers[path] = (spec.write_corrected if spec else None) or write_surge_file
        audited = files[path]  # every file read is written, even with nothing audited in it
        item = by_record.get((record.subset, record.location))
        if item is not None:
            audited[record.index] = item
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for path, audited in files.items():
        target = out / path.name
        text = writers[path](path, audited)
        target.write_text(text, encoding="utf-8")
        written[path.name] = target
    return written


def write_surge_file(path: Path, audited: Mapping[int, Erratum]) -> str:
    """A SURGE file as released, each corrected label swapped in with its note (``corrections``)."""
    released = json.loads(path.read_text(encoding="utf-8"))
    for index, entry in enumerate(released):
        fix = audited.get(index)
        if fix is not None and fix.corrected and isinstance(entry, dict) and fix.our_label is not None:
            entry["gt"] = as_released(fix.our_label, fix.released_label)
            entry["corrections"] = correction_note(fix)
    return dump_records(released)


def as_released(ours: str, released: str) -> str:
    """Our label ending as the released file's labels end: ml, cl and sc labels were stripped of their
    last newline, bg and dr kept it; the released label being corrected says which."""
    trailing = released[len(released.rstrip("\n")) :] if released else ""
    return ours.rstrip("\n") + trailing


def correction_note(erratum: Erratum) -> dict[str, Any]:
    """The released label beside the erratum's own note (its status is implied: corrected)."""
    note = {key: value for key, value in erratum.note().items() if key != "status"}
    return {"field": "gt", "released": erratum.released_label, **note}


def subset_summary(subset: str, items: list[Erratum]) -> str:
    errata = [e for e in items if e.status != "kept"]
    classes = Counter(e.audit_class for e in errata)
    statuses = Counter(e.status for e in items)
    lines = [
        f"# Errata of {subset}",
        "",
        f"{len(items)} labels audited: {statuses['kept']} kept, {statuses['corrected']} corrected in "
        f"`dataset/` (contradicted by a run that ended normally, repeats agreeing), {statuses['flagged']} "
        "flagged (not reproduced under any profile, not rewritten).",
        "",
        "| class | labels |",
        "|---|---|",
        *(f"| {klass} | {count} |" for klass, count in sorted(classes.items())),
        "",
        *_language_table(items),
        "| location | class | corrected | reason or diff |",
        "|---|---|---|---|",
        *(_row(e) for e in errata),
    ]
    return "\n".join(lines) + "\n"


def _language_table(items: list[Erratum]) -> list[str]:
    """Per language, where the subset has more than one (CRUXEval-X's nineteen)."""
    languages = sorted({e.language for e in items})
    if len(languages) < 2:
        return []
    rows = []
    for language in languages:
        counts = Counter(e.status for e in items if e.language == language)
        rows.append(f"| {language} | {counts['kept']} | {counts['corrected']} | {counts['flagged']} |")
    return ["| language | kept | corrected | flagged |", "|---|---|---|---|", *rows, ""]


def _row(erratum: Erratum) -> str:
    corrected = "yes" if erratum.corrected else "no"
    why = _cell(erratum.reason or erratum.evidence)
    return f"| {erratum.location} | {erratum.audit_class} | {corrected} | {why} |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:200]
