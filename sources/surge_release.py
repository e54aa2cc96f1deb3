"""SURGE's released benchmark (github.com/Imbernoulli/SURGE): ``dataset/<subset>.json``, for auditing.

Each file is a JSON list of {question, gt, custom_features, sys_0shot, sys_3shot, sys_cot} plus a
category. Two upstream quirks are modelled, not corrected:
- ml, cl and rl spell the key ``custom_categoey``; the others ``custom_category``;
- the numbers do not identify the subset (cl.json says 1, like ml.json), so the subset is the file
  name and the released number is kept beside it (``category``, ``category_matches_subset``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field

from pipeline.errors import InputError
from pipeline.records import Frozen, Language, QuarantinedRecord, SourceItem, parse_language
from sources.base import Loaded, Source, matching_files, quarantine, raw_json, read_json_list

NAME = "surge_release"
SUBSET_CATEGORIES = {"ml": 1, "cl": 2, "rl": 3, "sc": 4, "tc": 5, "bg": 6, "dr": 7, "fl": 8}  # per the paper
CATEGORY_KEYS = ("custom_category", "custom_categoey")  # the second is upstream's spelling in ml/cl/rl
FIXED_LANGUAGES = {"dr": Language.CPP, "sc": Language.PYTHON, "tc": Language.PYTHON, "fl": Language.LEAN4}
PROMPT_KEYS = ("sys_0shot", "sys_3shot", "sys_cot")
REQUIRED = ("question", "gt")


class ReleasedRecord(Frozen):
    """One released SURGE record with its label, located in its file."""

    subset: str = Field(description="file name: ml, cl, rl, sc, tc, bg, dr or fl")
    index: int
    location: str = Field(description="dataset/<subset>.json[index]")
    question: str
    gt: str = Field(description="the released label, verbatim")
    category: int | None = Field(description="the released category number, as released")
    category_key: str | None = Field(description="'custom_category' or upstream's 'custom_categoey'")
    language: Language | None
    upstream_language: str | None
    custom_features: dict[str, Any] = Field(default_factory=dict)
    prompts: dict[str, str] = Field(default_factory=dict)

    @property
    def category_matches_subset(self) -> bool:
        return self.category == SUBSET_CATEGORIES.get(self.subset)

    def to_source_item(self, commit: str, upstream_path: str) -> SourceItem:
        return SOURCE.item(
            key=f"{self.subset}[{self.index}]",
            commit=commit,
            path=upstream_path,
            locator=self.index,
            text=self.question,
            language=self.language,
            upstream_language=self.upstream_language,
            fields={
                "subset": self.subset,
                "gt": self.gt,
                "category": self.category,
                "category_key": self.category_key,
                "category_matches_subset": self.category_matches_subset,
                "custom_features": self.custom_features,
                "prompts": self.prompts,
            },
        )


def released_category(record: dict[str, Any]) -> tuple[int | None, str | None]:
    for key in CATEGORY_KEYS:
        if key in record:
            value = record[key]
            return (int(value) if str(value).strip().isdigit() else None), key
    return None, None


def record_language(subset: str, features: dict[str, Any]) -> tuple[Language | None, str | None]:
    """Raises ValueError for a language name no sandbox knows."""
    if subset in FIXED_LANGUAGES:
        return FIXED_LANGUAGES[subset], features.get("language")
    upstream = features.get("language")
    return (parse_language(upstream), upstream) if isinstance(upstream, str) else (None, None)


def parse_record(
    subset: str, index: int, location: str, record: dict[str, Any]
) -> ReleasedRecord | QuarantinedRecord:
    """A released record whose REQUIRED fields read_json_list has already checked."""
    features = record.get("custom_features", {})
    if not isinstance(features, dict):
        return quarantine(NAME, location, "custom_features is not an object", raw_json(record))
    try:
        language, upstream_language = record_language(subset, features)
    except ValueError as error:
        return quarantine(NAME, location, str(error), raw_json(record))
    category, category_key = released_category(record)
    return ReleasedRecord(
        subset=subset,
        index=index,
        location=location,
        question=record["question"],
        gt=record["gt"],
        category=category,
        category_key=category_key,
        language=language,
        upstream_language=upstream_language,
        custom_features=features,
        prompts={key: record[key] for key in PROMPT_KEYS if isinstance(record.get(key), str)},
    )


def iter_release_file(path: Path, relative: str) -> Iterator[ReleasedRecord | QuarantinedRecord]:
    for parsed in read_json_list(NAME, path, relative, REQUIRED):
        if isinstance(parsed, tuple):
            index, record = parsed
            yield parse_record(path.stem, index, f"{relative}[{index}]", record)
        else:
            yield parsed


def load_release(path: Path | str) -> tuple[list[ReleasedRecord], list[QuarantinedRecord]]:
    """Released records and quarantined ones from a SURGE checkout, its dataset/ folder, or one .json file."""
    path = Path(path)
    if path.is_file():
        files, root = [path], path.parent
    elif (path / "dataset").is_dir():
        files, root = matching_files(path, SOURCE.paths), path
    elif path.is_dir():
        files, root = sorted(path.glob("*.json")), path.parent
    else:
        raise InputError(
            f"no SURGE release at {path}", hint="pass a SURGE checkout, its dataset/ folder or a .json"
        )
    records: list[ReleasedRecord] = []
    bad: list[QuarantinedRecord] = []
    for file in files:
        for loaded in iter_release_file(file, file.relative_to(root).as_posix()):
            if isinstance(loaded, ReleasedRecord):
                records.append(loaded)
            else:
                bad.append(loaded)
    return records, bad


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        for loaded in iter_release_file(path, relative):
            yield loaded.to_source_item(commit, relative) if isinstance(loaded, ReleasedRecord) else loaded


SOURCE = Source(
    name=NAME,
    url="https://github.com/Imbernoulli/SURGE",
    commit="3e983a5a1d870469555dc5a72965445773b96c1a",
    licence="no licence stated upstream",
    kind="git",
    paths=("dataset/*.json",),
    read=read,
    description="SURGE's released 1,160 records with their labels (for `surge audit`)",
)
