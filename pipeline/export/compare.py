"""A build beside SURGE's release, per subset: families, languages, time bins, label lengths, categories.

The point of regrowing SURGE is its character, not only its size: ``surge build --compare-to dataset/``
and the card's comparison section show at a glance whether a regrown subset has as many program
families, the same languages, the same spread of run times and labels of the same length as the release.
The release side is read with the release's own reader (sources/surge_release.py), so bad records are
left out there exactly as the audit leaves them out.

Families: a script's ``family`` (or the release's ``fid``: sc, tc); a repository (rl); every other subset
the distinct programs (questions). Read from the features, so a subset of ours is compared the same way.
Time bins: from ``custom_features.time`` (tc's "12.6 seconds", sc's float); without one, "untimed".
"""

from __future__ import annotations

import hashlib
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.build.spread import BIN_NAMES, time_bin
from pipeline.dataset import DatasetRow

TOP = 4  # families named per side (the rest are counted)


@dataclass(frozen=True)
class Facts:
    """What the comparison reads of one row or released record."""

    subset: str
    family: str
    language: str
    time: object
    label_chars: int
    category: str


def of_row(row: DatasetRow) -> Facts:
    features = row.custom_features
    language = _one_language(row.subset) or row.language or "n/a"
    return Facts(
        subset=row.subset,
        family=_family(features, row.question),
        language=str(language),
        time=features.get("time"),
        label_chars=len(row.gt),
        category=_category(row.category, features),
    )


def of_record(record: Any) -> Facts:
    features = record.custom_features
    language = _one_language(record.subset) or record.upstream_language
    language = language or (record.language.value if record.language else "")
    return Facts(
        subset=record.subset,
        family=_family(features, record.question),
        language=str(language or "n/a"),
        time=features.get("time"),
        label_chars=len(record.gt),
        category=_category(record.category, features),
    )


def _one_language(subset: str) -> str:
    """The language every record of the subset is in, which its records do not name (sc, tc, dr, fl)."""
    from pipeline.subsets import REGISTRY

    spec = REGISTRY.get(subset)
    return spec.language.value if spec is not None and spec.language is not None else ""


def _family(features: dict[str, Any], question: str) -> str:
    """A built script's family, a released script's fid, a repository; otherwise the program itself."""
    if features.get("family") or features.get("fid"):
        return str(features.get("family") or str(features["fid"]).removesuffix(".py"))
    if features.get("repo") and "run_instruction" in features:  # a repository subset (rl)
        return str(features["repo"])
    return "program " + hashlib.sha256(question.encode()).hexdigest()[:8]


def _category(number: int | None, features: dict[str, Any]) -> str:
    """The category number, or what divides a subset further: bug types (bg), difficulty (cl)."""
    if "type" in features:
        kinds = features["type"]
        return ", ".join(kinds) if isinstance(kinds, list) else str(kinds)
    if "difficulty" in features:
        return f"difficulty {features['difficulty']}"
    return str(number)


def _bin(value: object) -> str:
    try:
        seconds = float(str(value).split()[0]) if value is not None else None
    except (ValueError, IndexError):
        seconds = None
    return "untimed" if seconds is None else time_bin(seconds)


def describe(facts: Sequence[Facts]) -> dict[str, Any]:
    """One side of one subset, as plain data (the --json form)."""
    families = Counter(f.family for f in facts)
    lengths = sorted(f.label_chars for f in facts)
    bins = Counter(_bin(f.time) for f in facts)
    return {
        "rows": len(facts),
        "families": len(families),
        "top_families": [name for name, _ in families.most_common(TOP)],
        "languages": dict(Counter(f.language for f in facts).most_common()),
        "time_bins": {name: bins[name] for name in (*BIN_NAMES, "untimed") if bins[name]},
        "label_chars": {
            "median": statistics.median(lengths) if lengths else 0,
            "max": lengths[-1] if lengths else 0,
        },
        "categories": dict(Counter(f.category for f in facts).most_common(6)),
    }


def compare(built: Iterable[Facts], released: Iterable[Facts], subsets: Sequence[str]) -> dict[str, Any]:
    """{subsets: {name: {build, release}}, _text: the side-by-side tables}."""
    ours, theirs = list(built), list(released)
    result = {
        name: {
            "build": describe([f for f in ours if f.subset == name]),
            "release": describe([f for f in theirs if f.subset == name]),
        }
        for name in subsets
    }
    return {
        "subsets": result,
        "_text": "\n".join(line for name in subsets for line in table(name, result[name])),
    }


def table(name: str, sides: dict[str, dict[str, Any]]) -> list[str]:
    """A markdown table of one subset: a line per fact, the build and the release side by side."""
    build, release = sides["build"], sides["release"]
    lines = [f"{name}: the build beside SURGE's release", "", "| | build | release |", "|---|---|---|"]
    for title, render in _ROWS:
        lines.append(f"| {title} | {render(build)} | {render(release)} |")
    return [*lines, ""]


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in counter.items()) or "-"


def _families(side: dict[str, Any]) -> str:
    more = ", ..." if side["families"] > TOP else ""
    return f"{side['families']} ({', '.join(side['top_families'])}{more})"


def _lengths(side: dict[str, Any]) -> str:
    return f"{side['label_chars']['median']:g} / {side['label_chars']['max']}"


_ROWS = (
    ("rows", lambda side: str(side["rows"])),
    ("families", _families),
    ("languages", lambda side: _counts(side["languages"])),
    ("time bins", lambda side: _counts(side["time_bins"])),
    ("label chars (median / max)", _lengths),
    ("categories", lambda side: _counts(side["categories"])),
)


def compare_store(store_root: Path, release: Path, subsets: Sequence[str]) -> dict[str, Any]:
    """The store's dataset rows of these subsets beside the release's records of them."""
    from pipeline.dataset import dataset_table
    from pipeline.store import Store
    from pipeline.subsets import load_release

    rows = dataset_table(Store(store_root)).records(where={"subset": list(subsets)})
    records, _ = load_release(release, set(subsets))
    return compare(map(of_row, rows), map(of_record, records), subsets)


def card_section(rows: Sequence[DatasetRow], release: Path) -> list[str]:
    """The card's comparison: every exported subset beside the release's."""
    from pipeline.subsets import load_release

    subsets = sorted({row.subset for row in rows})
    records, _ = load_release(release, set(subsets))
    found = compare(map(of_row, rows), map(of_record, records), subsets)
    return ["## Beside SURGE's release", "", found["_text"]]
