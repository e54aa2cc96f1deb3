"""CRUXEval-X's test records (examples/surge-cruxeval/.../data/cruxeval-x: our own programs in upstream's
format), files of them written for a test, and a few records run through a real sandbox the way `surge
audit` runs them (each program with its mutant, then the audit's row)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.audit.convert import convert
from pipeline.audit.rows import AuditRow, Conversion
from pipeline.audit.verdicts import audit_row
from pipeline.records import Limits, RunRequest
from pipeline.subsets import ProgramPlan, load_release
from sandboxes.profiles import get_profile
from sources.surge_release import ReleasedRecord
from tests.examples.cruxeval_files import PACKAGE

BUNDLED_X = PACKAGE / "src" / "surge_cruxeval" / "data" / "cruxeval-x"
SUBSET_X = "cruxeval-x"
# The bundled files' ids, the same in every language (data/cruxeval-x/README.txt)
PASSES, MISSING, WRONG, PASSES_LIST, PASSES_EMPTY = 0, 1, 2, 3, 4
PAIR, PROSE, VACUOUS = 5, 6, 7


def entries(stem: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((BUNDLED_X / f"{stem}.json").read_text(encoding="utf-8"))
    return loaded


def write_file(folder: Path, stem: str, items: Sequence[Any]) -> Path:
    """A language file as upstream writes them (indent 4, characters as they are)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.json"
    path.write_text(json.dumps(list(items), indent=4, ensure_ascii=False), encoding="utf-8")
    return path


def records(stem: str, ids: Sequence[int] | None = None) -> dict[int, ReleasedRecord]:
    """The bundled records of a language by id (the reader's, through the release loader)."""
    read, bad = load_release(BUNDLED_X / f"{stem}.json", {SUBSET_X})
    assert bad == [], bad
    by_id = {r.custom_features["id"]: r for r in read}
    return {i: by_id[i] for i in (ids if ids is not None else by_id)}


def run_plans(plans: dict[int, tuple[ReleasedRecord, ProgramPlan]]) -> dict[int, AuditRow]:
    """Each plan's program and mutant run under bwrap (the default profile, the audit's limits); the
    audit's row of each."""
    from sandboxes import open_backend

    profile = get_profile("default")
    conversions = {key: Conversion(record=record, plan=plan) for key, (record, plan) in plans.items()}
    requests: list[RunRequest] = []
    where: dict[int, int] = {}
    for key, conversion in conversions.items():
        where[key] = len(requests)
        programs = [conversion.program, *conversion.probes]
        requests += [RunRequest(program=p, profile=profile, limits=Limits()) for p in programs]
    with open_backend("bwrap") as backend:
        results = list(backend.run_batch(requests))
    rows = {}
    for key, conversion in conversions.items():
        at, probes = where[key], len(conversion.probes)
        rows[key] = audit_row(conversion, profile, results[at], probes=results[at + 1 : at + 1 + probes])
    return rows


def run_records(chosen: dict[int, ReleasedRecord]) -> dict[int, AuditRow]:
    """The audit's rows of records whose programs convert (as `surge audit` converts them)."""
    plans = {}
    for key, record in chosen.items():
        converted = convert(record)
        assert isinstance(converted, Conversion), converted
        plans[key] = (record, converted.plan)
    return run_plans(plans)
