"""SURGE's released benchmark (github.com/Imbernoulli/SURGE): ``dataset/<subset>.json``.

THE one reader of the release: `surge pull` (through ``read``), `surge audit`, and the build and export
stages all read released records through ``load_release``/``iter_release_file``. Each file is a JSON list
of {question, gt, custom_features, sys_0shot, sys_3shot, sys_cot} plus a category. Upstream quirks are
modelled, not corrected:
- ml, cl and rl spell the key ``custom_categoey``; the others ``custom_category``;
- the numbers do not identify the subset (cl.json says 1, like ml.json). The subset is the file name,
  which every released file carries; the released number is kept beside it (``category``,
  ``category_matches_subset``). Only a file named otherwise falls back to the number, with SURGE's own
  rule (eval/main.py: 1 with a ``difficulty`` feature is cl). Before this module was the only reader,
  the audit used the number first and turned a cl record without ``difficulty`` into ml.
Which subsets exist, their numbers and the one language of some (dr is C++) are the subset specs' to say
(pipeline/subsets), and the specs sit above this reader: a caller passes them in (``known``, a
``Catalog``; ``pipeline.subsets.release.load_release`` passes the registry's, so a subset registered later
(ours, a test's, a plug-in's) is read like SURGE's eight). Without one, the reader knows the eight subsets
SURGE's repository holds (``SURGE_SUBSETS``: upstream's numbering, as ``CATEGORY_KEYS`` is upstream's
spelling), which is all `surge pull` reads. A subset whose data is in a format of its own (a plug-in's
benchmark, e.g. CRUXEval's JSONL) names its reader in its catalog entry (the spec's ``read_records``): a
file named after it, or asked for with ``--subset``, is read by that reader into the same ReleasedRecords.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import Field, computed_field

from pipeline.errors import InputError
from pipeline.records import Frozen, Language, QuarantinedRecord, SourceItem, content_id
from sandboxes.languages import parse_language
from sources.base import Loaded, Source, matching_files, quarantine, raw_json, read_json_list

NAME = "surge_release"
CATEGORY_KEYS = ("custom_category", "custom_categoey")  # the second is upstream's spelling in ml/cl/rl
PROMPT_KEYS = ("sys_0shot", "sys_3shot", "sys_cot")
REQUIRED = ("question", "gt")
# SURGE's eval/main.py tells its two category-1 subsets apart by this feature: with it, the paper's 2.
CATEGORY_WITH_DIFFICULTY = (1, 2)


# (file, its location as reports name it) -> the file's records and quarantined entries: how a subset whose
# data is not SURGE's JSON list (a plug-in's benchmark: CRUXEval's JSONL) reads its own files.
RecordReader = Callable[[Path, str], Iterator[Any]]


class ReleaseSubset(Frozen):
    """What the reader needs of one subset, as its spec (pipeline/subsets/<name>.py) says."""

    category: int = Field(description="the paper's category number")
    language: Language | None = Field(default=None, description="the language of every record, if one")
    reader: RecordReader | None = Field(
        default=None, description="reads the subset's own file format; None: SURGE's dataset/<subset>.json"
    )


Catalog = Mapping[str, ReleaseSubset]

# The subsets of SURGE's repository, as its files number them (the paper's categories) and with the one
# language of those whose records name none. The subset specs say the same (tests/sources checks they
# agree); this copy is what the reader knows when no caller passes the registry's catalog.
SURGE_SUBSETS: Catalog = {
    "ml": ReleaseSubset(category=1),
    "cl": ReleaseSubset(category=2),
    "rl": ReleaseSubset(category=3),
    "sc": ReleaseSubset(category=4, language=Language.PYTHON),
    "tc": ReleaseSubset(category=5, language=Language.PYTHON),
    "bg": ReleaseSubset(category=6),
    "dr": ReleaseSubset(category=7, language=Language.CPP),
    "fl": ReleaseSubset(category=8, language=Language.LEAN4),
}


class ReleasedRecord(Frozen):
    """One released SURGE record with its label, located in its file."""

    subset: str = Field(description="the subset's name (the file name): ml, cl, ... or a subset of ours")
    index: int = Field(description="position in its file")
    location: str = Field(description="dataset/<subset>.json[index]")
    question: str
    gt: str = Field(description="the released label, verbatim")
    category: int | None = Field(default=None, description="the released category number, as released")
    category_key: str | None = Field(
        default=None, description="'custom_category' or upstream's 'custom_categoey'"
    )
    language: Language | None = None
    upstream_language: str | None = None
    custom_features: dict[str, Any] = Field(default_factory=dict)
    prompts: dict[str, str] = Field(default_factory=dict)
    category_matches_subset: bool = Field(
        default=False, description="the released number is the subset's own (cl.json's 1 is not)"
    )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def record_id(self) -> str:
        return content_id("surge-released", self.subset, self.question, self.gt, self.custom_features)

    @property
    def item_id(self) -> str:
        """What a model is asked, never what it is scored against: predictions keyed by it match the same
        item in a dataset whose labels (or re-measured features, tc's time) were corrected."""
        return content_id("surge-item", self.subset, self.question)

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


def subset_of(file_stem: str, category: int | None, features: dict[str, Any], known: Catalog) -> str | None:
    """The file name when it is a subset's; else the released number, read as SURGE's eval/main.py does."""
    if file_stem in known:
        return file_stem
    numbers = {subset.category for subset in known.values()}
    if category is not None and category not in numbers and file_stem.isidentifier():
        # A subset no spec knows (another pipeline's file) is named by its file; the audit refuses one
        # its registry does not know, with the reason (pipeline/audit/convert.py).
        return file_stem
    if category == CATEGORY_WITH_DIFFICULTY[0] and "difficulty" in features:
        category = CATEGORY_WITH_DIFFICULTY[1]
    return next((name for name, subset in known.items() if subset.category == category), None)


def record_language(
    subset: str, features: dict[str, Any], known: Catalog
) -> tuple[Language | None, str | None]:
    """Raises ValueError for a language name no sandbox knows."""
    fixed = known[subset].language if subset in known else None
    if fixed is not None:
        return fixed, features.get("language")
    upstream = features.get("language")
    return (parse_language(upstream), upstream) if isinstance(upstream, str) else (None, None)


def parse_record(
    file_stem: str, index: int, location: str, record: dict[str, Any], known: Catalog = SURGE_SUBSETS
) -> ReleasedRecord | QuarantinedRecord:
    """A released record whose REQUIRED fields read_json_list has already checked (``known``: the
    subsets the caller knows)."""
    features = record.get("custom_features") or {}
    if not isinstance(features, dict):
        return quarantine(NAME, location, "custom_features is not an object", raw_json(record))
    category, category_key = released_category(record)
    subset = subset_of(file_stem, category, features, known)
    if subset is None:
        reason = f"cannot tell the subset: file {file_stem!r}, category {category!r}"
        return quarantine(NAME, location, reason, raw_json(record))
    try:
        language, upstream_language = record_language(subset, features, known)
    except ValueError as error:
        return quarantine(NAME, location, str(error), raw_json(record))
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
        category_matches_subset=subset in known and category == known[subset].category,
    )


def iter_release_file(
    path: Path, relative: str, known: Catalog = SURGE_SUBSETS
) -> Iterator[ReleasedRecord | QuarantinedRecord]:
    for parsed in read_json_list(NAME, path, relative, REQUIRED):
        if isinstance(parsed, tuple):
            index, record = parsed
            yield parse_record(path.stem, index, f"{relative}[{index}]", record, known)
        else:
            yield parsed


def release_files(path: Path) -> tuple[list[Path], Path]:
    """The .json files under a SURGE checkout, its dataset/ folder, or one file; and the root they are
    named relative to (so a location reads like upstream's path: ``dataset/ml.json[3]``)."""
    if path.is_file():
        return [path], path.parent
    if (path / "dataset").is_dir():
        return matching_files(path, SOURCE.paths), path
    if path.is_dir():
        return sorted(path.glob("*.json")), path.parent
    raise InputError(
        f"no SURGE release at {path}",
        hint="pass a SURGE checkout, its dataset/ folder or a dataset/<subset>.json",
    )


def reader_for(file: Path, subsets: set[str] | None, known: Catalog) -> RecordReader:
    """SURGE's reader, unless the file is in a subset's own format: named after a subset whose spec reads
    its files itself (``cruxeval.jsonl``), or named after no subset while the one subset asked for with a
    reader of its own is that subset (CRUXEval-X's ``java.json`` with ``--subset cruxeval-x``)."""
    own = known.get(file.stem)
    if own is not None and own.reader is not None:
        return own.reader
    asked = [reader for name in subsets or () if name in known and (reader := known[name].reader)]
    if own is None and len(set(asked)) == 1:
        return asked[0]
    return partial(iter_release_file, known=known)


def load_release(
    path: Path | str, subsets: set[str] | None = None, known: Catalog = SURGE_SUBSETS
) -> tuple[list[ReleasedRecord], list[QuarantinedRecord]]:
    """Released records and quarantined ones (each with its reason), optionally only some subsets, read
    with what ``known`` says of each subset (pipeline.subsets.release.load_release: the registry's).

    A quarantined entry whose subset cannot be known (a file that is no JSON list) is always kept.
    """
    files, root = release_files(Path(path))
    records: list[ReleasedRecord] = []
    bad: list[QuarantinedRecord] = []
    for file in files:
        read_file = reader_for(file, subsets, known)
        for loaded in read_file(file, file.relative_to(root).as_posix()):
            if isinstance(loaded, ReleasedRecord):
                if subsets is None or loaded.subset in subsets:
                    records.append(loaded)
            elif subsets is None or file.stem in subsets or file.stem not in known:
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
    samples="surge-released",
    read=read,
    description="SURGE's released 1,160 records with their labels (for `surge audit`, build and export)",
)
