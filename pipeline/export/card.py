"""The dataset card, written from the store's rows: what is in the export, where it came from, under which
licences and toolchains, and what a user must know (prompt defects reproduced or corrected, caveats)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pipeline.dataset import DatasetRow
from pipeline.export.metadata import row_licence
from pipeline.export.prompts import load_template
from pipeline.subsets import REGISTRY, RELEASED

# What each upstream licence means for this export (sources/samples/*/README.txt, sources/registry.py).
LICENCE_MEANING = {
    "CC-BY-SA-4.0": "attribution; a derived dataset must be shared under the same licence",
    "CC-BY-NC-ND-4.0": "attribution, NO commercial use, NO derivatives: refactored programs are derivatives; "
    "redistributing them needs the rights holder's permission",
    "Apache-2.0": "permissive: attribution and the licence notice",
    "GPL-3.0": "copyleft: redistributed programs stay GPL-3.0 with their source",
    "MIT": "permissive: attribution and the licence notice",
    "no licence stated upstream": "all rights reserved by default: redistribution needs the authors'"
    " permission",
    "not recorded": "the build recorded no licence for this upstream: find it before redistributing",
}
TIME_BINS_S = ((0.1, "< 0.1 s"), (1.0, "0.1-1 s"), (10.0, "1-10 s"), (float("inf"), ">= 10 s"))


def time_bin(value: object) -> str:
    """sc/tc record a run time as a float (sc) or a string like '12.6223 seconds' (tc), or null."""
    try:
        seconds = float(str(value).split()[0]) if value is not None else None
    except (ValueError, IndexError):
        seconds = None
    if seconds is None:
        return "unknown"
    return next(label for limit, label in TIME_BINS_S if seconds < limit)


def counts(rows: Sequence[DatasetRow]) -> dict[str, Counter[str]]:
    tallies: dict[str, Counter[str]] = {
        name: Counter() for name in ("subset", "language", "difficulty", "bug type", "time")
    }
    for row in rows:
        features = row.custom_features
        tallies["subset"][row.subset] += 1
        tallies["language"][f"{row.subset}: {row.language or 'n/a'}"] += 1
        if "difficulty" in features:
            tallies["difficulty"][f"{row.subset}: {features['difficulty']}"] += 1
        spec = REGISTRY.get(row.subset)
        if spec is not None and "type" in spec.feature_keys:  # bg: the bug's kinds
            kinds = features.get("type")
            for kind in kinds if isinstance(kinds, list) else [str(kinds)]:
                tallies["bug type"][kind] += 1
        if "time" in features:
            tallies["time"][f"{row.subset}: {time_bin(features['time'])}"] += 1
    return tallies


def table(title: str, counter: Counter[str]) -> list[str]:
    lines = [f"### {title}", "", "| value | rows |", "|---|---|"]
    lines += [f"| {value} | {n} |" for value, n in sorted(counter.items())]
    return [*lines, ""]


def provenance(rows: Sequence[DatasetRow]) -> list[str]:
    lines = ["| subset | construction | labels | upstream | commit | licence |", "|---|---|---|---|---|---|"]
    seen = sorted(
        {
            (r.subset, r.construction, r.label_origin, r.upstream.repo, r.upstream.commit, row_licence(r))
            for r in rows
        },
        key=lambda t: (list(REGISTRY).index(t[0]) if t[0] in REGISTRY else 99, t[1:]),
    )
    lines += [f"| {' | '.join(parts)} |" for parts in seen]
    auto, recorded = sum(r.auto_approved for r in rows), sum(r.recorded_llm for r in rows)
    lines += [
        "",
        f"Approved without human review: {auto} rows; refactored from a recorded LLM reply: {recorded}.",
    ]
    return [*lines, ""]


def toolchains(rows: Sequence[DatasetRow]) -> list[str]:
    runs = Counter(
        (
            r.subset,
            r.run.profile,
            r.run.backend,
            ", ".join(f"{k} {v}" for k, v in sorted(r.run.toolchain_versions.items())),
        )
        for r in rows
        if r.run is not None
    )
    released = sum(1 for r in rows if r.run is None)
    lines = ["| subset | profile | backend | toolchains | rows |", "|---|---|---|---|---|"]
    lines += [f"| {s} | {p} | {b} | {t or 'n/a'} | {n} |" for (s, p, b, t), n in sorted(runs.items())]
    if released:
        lines.append(f"| (released labels) | SURGE's, not re-executed | - | - | {released} |")
    return [*lines, ""]


def licences(rows: Sequence[DatasetRow]) -> list[str]:
    """The upstreams these rows came from, each with its licence: the others do not bind this export."""
    used = Counter((row.upstream.repo, row_licence(row)) for row in rows)
    lines = ["| upstream | licence | rows | what it means for this export |", "|---|---|---|---|"]
    for (repo, licence), n in sorted(used.items()):
        meaning = LICENCE_MEANING.get(licence, "read the upstream's licence before redistributing")
        lines.append(f"| {repo} | {licence} | {n} | {meaning} |")
    return [*lines, ""]


def licence_document(rows: Sequence[DatasetRow]) -> str:
    """LICENSE.md of a Hugging Face export: what the card's licence field points to."""
    head = [
        "# Licences",
        "",
        "Each row is under the licence of the upstream it came from (the `upstream_licence` column):",
        "",
    ]
    return "\n".join([*head, *licences(rows)])


def defects(subsets: Sequence[str], faithful: bool) -> list[str]:
    found = [defect for s in subsets if s in RELEASED for defect in load_template(s).defects]
    released = [s for s in subsets if s in RELEASED]
    if found:
        mode = "reproduced (`--faithful`)" if faithful else "corrected (the default; `--faithful` keeps them)"
        lines = [f"Prompt defects of the release, {mode}:", "", *(f"- {defect}" for defect in found)]
    elif released:
        lines = [f"The release's prompts of {', '.join(released)} have no known defects; kept as released."]
    else:
        lines = []
    ours = [s for s in subsets if s not in RELEASED]
    if ours:  # no released prompt to be faithful to: the generic template (export/templates/generic.v1.json)
        lines += [
            "",
            f"Subsets of ours, not in SURGE's release (generic prompt template): {', '.join(ours)}.",
        ]
    return [*lines, ""]


CAVEATS = [
    "- The category key is spelled `custom_categoey` in ml, cl and rl, as released; cl records carry 1, as "
    "released (SURGE's eval/main.py reads 1 with a `difficulty` feature as cl).",
    '- rl: TUOJ C++ repositories say `language: "Python"` and their file blocks close with `<endfile>`, '
    "`<enfile>` or `<end_file>`, as released.",
    "- dr's CoT line has one space after 'step by step.' where the other subsets have two; kept.",
    "- Rows imported from the release keep their released few-shot examples (drawn by SURGE from the full "
    "release); rows built here draw theirs from the same pool with a seed.",
    "- Labels depend on the execution profile (locale, compiler versions, C library): see the toolchain "
    "table.",
]


def render_card(rows: Sequence[DatasetRow], faithful: bool, seed: int, release: Path | None = None) -> str:
    subsets = [name for name in REGISTRY if any(r.subset == name for r in rows)]
    lines = [
        "# SURGE (exported by surge-pipeline)",
        "",
        f"{len(rows)} items in {len(subsets)} subsets; few-shot seed {seed}.",
        "",
    ]
    lines += ["## Counts", ""]
    for title, counter in counts(rows).items():
        if counter:
            lines += table(f"by {title}", counter)
    lines += [
        "## Provenance",
        "",
        *provenance(rows),
        "## Labels: profiles and toolchains",
        "",
        *toolchains(rows),
    ]
    if release is not None:  # side by side with SURGE's release (pipeline/export/compare.py)
        from pipeline.export.compare import card_section

        lines += card_section(rows, release)
    lines += ["## Licences of the upstreams used", "", *licences(rows)]
    lines += ["## Prompts", "", *defects(subsets, faithful), "## Caveats", "", *CAVEATS, ""]
    return "\n".join(lines)
