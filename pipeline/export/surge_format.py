"""SURGE's own format: ``dataset/<subset>.json``, a JSON list of records with exactly the release's keys.

Key order, spelling and formatting follow the release: the category key (``custom_categoey`` in ml, cl
and rl), ``custom_features`` with the subset's keys in the release's order, ``question``, ``gt``, then
``sys_0shot``, ``sys_3shot``, ``sys_cot``; ``json.dump(indent=4, ensure_ascii=True)`` as upstream wrote it.

Prompts: a row built by the pipeline gets examples drawn from its pool (prompts.choose_examples). A row
imported from the release keeps its released examples (they come from the full release, which the
store may not hold): ``--faithful`` writes its released prompts verbatim, the default re-renders them
with the corrected template around the same examples.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.dataset import DatasetRow
from pipeline.errors import InputError
from pipeline.export.prompts import (
    Prompts,
    choose_examples,
    example_of,
    load_template,
    parse_examples,
    render,
)
from pipeline.records import Frozen
from pipeline.subsets import REGISTRY, subset_spec

RECORD_KEYS = ("custom_features", "question", "gt", "sys_0shot", "sys_3shot", "sys_cot")


class SurgeExport(Frozen):
    records: dict[str, list[dict[str, Any]]] = Field(description="subset -> records, in row order")
    released_verbatim: int = Field(default=0, description="imported rows whose prompts were kept as released")
    short_pools: int = Field(default=0, description="rows given fewer examples than the subset's count")


def ordered_features(row: DatasetRow) -> dict[str, Any]:
    """The subset's keys in the release's order, then any other key the row carries."""
    keys = subset_spec(row.subset).feature_keys
    features = {key: row.custom_features[key] for key in keys if key in row.custom_features}
    features.update({k: v for k, v in row.custom_features.items() if k not in features})
    return features


def row_prompts(row: DatasetRow, examples: Sequence[DatasetRow], faithful: bool) -> tuple[Prompts, bool]:
    """The row's prompts, and whether they are the released text verbatim."""
    released = row.released_prompts
    if released and set(released) >= {"sys_0shot", "sys_cot", "sys_3shot"}:
        verbatim = Prompts(**{key: released[key] for key in ("sys_0shot", "sys_cot", "sys_3shot")})
        if faithful:
            return verbatim, True
        try:
            return render(row, parse_examples(row, released["sys_3shot"]), faithful=False), False
        except InputError:
            # A released prompt the template does not describe (e.g. rl's PlotNeuralNet records, which
            # have no run instruction) is kept as released and counted, never guessed at.
            return verbatim, True
    template = load_template(row.subset)
    return render(row, [example_of(other, template) for other in examples], faithful), False


def surge_record(row: DatasetRow, prompts: Prompts) -> dict[str, Any]:
    spec = subset_spec(row.subset)
    return {
        spec.category_key: row.category,
        "custom_features": ordered_features(row),
        "question": row.question,
        "gt": row.gt,
        "sys_0shot": prompts.sys_0shot,
        "sys_3shot": prompts.sys_3shot,
        "sys_cot": prompts.sys_cot,
    }


def build_export(rows: Sequence[DatasetRow], faithful: bool, seed: int) -> SurgeExport:
    chosen = choose_examples([row for row in rows if not row.released_prompts], seed)
    records: dict[str, list[dict[str, Any]]] = {}
    verbatim = short = 0
    for row in rows:
        examples = chosen.get(row.row_id, [])
        prompts, kept = row_prompts(row, examples, faithful)
        verbatim += kept
        short += not row.released_prompts and len(examples) < subset_spec(row.subset).few_shot_examples
        records.setdefault(row.subset, []).append(surge_record(row, prompts))
    ordered = {name: records[name] for name in REGISTRY if name in records}
    return SurgeExport(records=ordered, released_verbatim=verbatim, short_pools=short)


def dump_records(records: list[dict[str, Any]]) -> str:
    """As upstream wrote its files (the bundled samples are byte-identical to this)."""
    return json.dumps(records, indent=4, ensure_ascii=True)


def write_surge(export: SurgeExport, out: Path) -> dict[str, str]:
    """OUT/dataset/<subset>.json for each subset; written under a temporary name, then renamed."""
    folder = out / "dataset"
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    for subset, records in export.records.items():
        final = folder / f"{subset}.json"
        temporary = folder / f".{subset}.json.partial"
        temporary.write_text(dump_records(records), encoding="ascii")
        temporary.replace(final)
        written[subset] = str(final)
    return written


def read_surge(path: Path) -> list[dict[str, Any]]:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {path}: {error}", hint="pass a file `surge export` wrote") from error
    if not isinstance(records, list):
        raise InputError(f"{path} is not a JSON list", hint="pass a dataset/<subset>.json file")
    return records
