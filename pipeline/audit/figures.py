"""The audit's figures, computed from its rows: each label counted once by its best class over profiles,
per subset, per language and in total; the runs per class; the profiles' ranking. Typed models only:
the HTML report (html.py) and the CLI's text (pipeline/commands/audit.py) render these, never compute."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from pydantic import Field

from pipeline.audit.ranking import BestProfile, best_profile, best_rows, reproducing_profiles
from pipeline.audit.rows import EXPLAINED, REPRODUCED, UNEXPLAINED, AuditClass, AuditRow, Refusal
from pipeline.records import Frozen

K = TypeVar("K", bound=Hashable)


class RefusalNote(Frozen):
    """A record the audit could not read, where it is and why."""

    location: str
    reason: str


class LabelFigures(Frozen):
    """Each label once, by its best class over profiles: the headline's figures."""

    labels: int = Field(description="labels read, refused records included")
    reproduced: int
    explained: dict[str, int] = Field(description="named cause -> labels it explains")
    unexplained: int
    refused: int
    not_run: int

    @property
    def explained_total(self) -> int:
        return sum(self.explained.values())


class GroupFigures(LabelFigures):
    """One subset's or one language's figures: the labels', plus every run's class and score."""

    counts: dict[str, int] = Field(description="class -> runs, one per label and profile")
    reproduced_per_profile: dict[str, int] = Field(description="profile -> labels it reproduces alone")
    runs: int
    mean_score: float | None = Field(description="over the runs that ran (None: none ran)")
    agreement: float | None = Field(description="share of the runs that ran and reproduce")
    best_profile: str | None = Field(description="None: one profile only")
    best_profile_tied_with: list[str]


class AuditFigures(LabelFigures):
    """The whole audit's figures: in total, per subset, per subset and language, and per profile."""

    rows: int = Field(description="audited runs: one per label and profile")
    refusals: list[RefusalNote]
    classes: dict[str, int] = Field(description="class -> runs")
    by_subset: dict[str, GroupFigures]
    by_language: dict[str, GroupFigures] = Field(description="'subset/language' -> its figures")
    leaks: list[str] = Field(description="locations of programs whose text reveals the expected output")
    profiles: list[str]
    skipped_profiles: dict[str, str] = Field(description="profile -> why it did not run")
    best_profile: BestProfile | None = Field(description="None: one profile only")
    reproduced_by: dict[str, list[str]] = Field(description="location -> profiles that reproduce it")
    reproduced_per_profile: dict[str, int]


class HeadlineRow(Frozen):
    """One line of the headline table: a language of a subset, a subset, or the total."""

    name: str
    labels: int
    reproduced: int
    explained: int
    unexplained: int
    refused: int
    not_run: int
    mean_score: float | None
    best_profile: str | None
    tied_with: list[str]


def summarise(
    rows: Sequence[AuditRow], refusals: Sequence[Refusal], skipped_profiles: dict[str, str] | None = None
) -> AuditFigures:
    """Per subset and in total: each label counted once, by its best class over profiles (labels,
    reproduced, explained per named cause, unexplained, refused, not_run), plus per-run class counts and
    mean scores (not-run labels excluded from the mean)."""
    refused_by_subset = Counter(r.subset for r in refusals)
    groups = group_by(rows, lambda r: r.subset)
    by_subset = {
        subset: group_figures(groups.get(subset, []), refused_by_subset[subset])
        for subset in sorted(set(groups) | set(refused_by_subset))
    }
    by_language = {
        f"{subset}/{language}": group_figures(group)
        for (subset, language), group in sorted(group_by(rows, lambda r: (r.subset, r.language)).items())
    }
    profiles = sorted({r.profile for r in rows})
    several = len(profiles) > 1
    return AuditFigures(
        **label_figures(rows, len(refusals)).model_dump(),
        rows=len(rows),
        refusals=[RefusalNote(location=f.location, reason=f.reason) for f in refusals],
        classes=dict(Counter(r.audit_class.value for r in rows)),
        by_subset=by_subset,
        by_language=by_language,
        leaks=sorted({r.location for r in rows if r.leaks}),
        profiles=profiles,
        skipped_profiles=skipped_profiles or {},
        best_profile=best_profile(rows) if several else None,
        reproduced_by=reproducing_profiles(rows) if several else {},
        reproduced_per_profile=reproduced_per_profile(rows, profiles),
    )


def reproduced_per_profile(rows: Sequence[AuditRow], profiles: Sequence[str]) -> dict[str, int]:
    """Labels reproduced under each profile on its own: the matrix beside the headline, which counts each
    label once at its best profile."""
    reproduced = {(r.record_id, r.profile) for r in rows if r.audit_class in REPRODUCED}
    return {p: sum(1 for _, profile in reproduced if profile == p) for p in profiles}


def label_figures(rows: Sequence[AuditRow], refused: int) -> LabelFigures:
    """Each label once, by its best class."""
    best = [row.audit_class for row in best_rows(rows).values()]
    return LabelFigures(
        labels=len(best) + refused,
        reproduced=sum(c in REPRODUCED for c in best),
        explained=dict(sorted(Counter(c.value for c in best if c in EXPLAINED).items())),
        unexplained=sum(c in UNEXPLAINED for c in best),
        refused=refused,
        not_run=sum(c is AuditClass.NOT_RUN for c in best),
    )


def group_figures(rows: Sequence[AuditRow], refused: int = 0) -> GroupFigures:
    scores = [r.score for r in rows if r.score is not None]
    reproduced = sum(r.audit_class in REPRODUCED for r in rows)
    ran = sum(r.audit_class is not AuditClass.NOT_RUN for r in rows)
    profiles = sorted({r.profile for r in rows})
    ranking = best_profile(rows) if len(profiles) > 1 else None
    return GroupFigures(
        **label_figures(rows, refused).model_dump(),
        counts=dict(Counter(r.audit_class.value for r in rows)),
        reproduced_per_profile=reproduced_per_profile(rows, profiles),
        runs=len(rows),
        mean_score=round(sum(scores) / len(scores), 4) if scores else None,
        # share of the runs that ran and reproduce: a missing toolchain says nothing of a label
        agreement=round(reproduced / ran, 4) if ran else None,
        best_profile=ranking.profile if ranking else None,
        best_profile_tied_with=ranking.tied_with if ranking else [],
    )


def headline(figures: AuditFigures) -> list[tuple[str, LabelFigures]]:
    """The per-subset and total lines, each label once at its best profile: the terminal and the HTML
    report both print exactly these figures."""
    return [*((f"TOTAL {s}", f) for s, f in figures.by_subset.items()), ("TOTAL", figures)]


def headline_rows(figures: AuditFigures) -> list[HeadlineRow]:
    """Each label once (its best class over profiles), per language, then per subset and in total."""
    groups = [*figures.by_language.items(), *((f"TOTAL {s}", f) for s, f in figures.by_subset.items())]
    total = figures.best_profile
    return [
        *(group_row(name, group) for name, group in groups),
        headline_row(
            "TOTAL", figures, None, total.profile if total else None, total.tied_with if total else []
        ),
    ]


def group_row(name: str, group: GroupFigures) -> HeadlineRow:
    return headline_row(name, group, group.mean_score, group.best_profile, group.best_profile_tied_with)


def headline_row(
    name: str, figures: LabelFigures, mean_score: float | None, best: str | None, tied_with: list[str]
) -> HeadlineRow:
    return HeadlineRow(
        name=name,
        labels=figures.labels,
        reproduced=figures.reproduced,
        explained=figures.explained_total,
        unexplained=figures.unexplained,
        refused=figures.refused,
        not_run=figures.not_run,
        mean_score=mean_score,
        best_profile=best,
        tied_with=tied_with,
    )


def best_class_counts(rows: Sequence[AuditRow]) -> dict[str, dict[str, int]]:
    """subset -> class -> labels whose best class it is (the report's chart of classes)."""
    return {
        subset: dict(Counter(r.audit_class.value for r in best_rows(group).values()))
        for subset, group in sorted(group_by(rows, lambda r: r.subset).items())
    }


def group_by(rows: Iterable[AuditRow], key: Callable[[AuditRow], K]) -> dict[K, list[AuditRow]]:
    groups: dict[K, list[AuditRow]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return dict(groups)


# The CPU-time chart's bins: log-spaced edges, 1 ms .. 100 s, with one bin below and one above.
CPU_BIN_EDGES_S = tuple(10.0**e for e in range(-3, 3))


def cpu_time_counts(rows: Sequence[AuditRow]) -> list[int]:
    """Runs per CPU-time bin (compile + run), below the first edge first; not-run rows left out."""
    counts = [0] * (len(CPU_BIN_EDGES_S) + 1)
    for row in rows:
        if row.audit_class is AuditClass.NOT_RUN:
            continue
        above = row.cpu_s >= CPU_BIN_EDGES_S[0]
        index = min(len(counts) - 1, 1 + int(math.floor(math.log10(row.cpu_s) + 3))) if above else 0
        counts[index] += 1
    return counts


class RecordedTimes(Frozen):
    """sc/tc: our CPU seconds against the time SURGE recorded for the same script and command."""

    subset: str
    runs: int
    median_cpu_s: float
    median_recorded_s: float


def recorded_times(rows: Sequence[AuditRow]) -> list[RecordedTimes]:
    """Per subset, the medians over the runs that ran of a record with a recorded time."""
    timed = [r for r in rows if r.recorded_time_s is not None and r.audit_class is not AuditClass.NOT_RUN]
    return [
        RecordedTimes(
            subset=subset,
            runs=len(group),
            median_cpu_s=upper_median([r.cpu_s for r in group]),
            median_recorded_s=upper_median([r.recorded_time_s or 0.0 for r in group]),
        )
        for subset, group in sorted(group_by(timed, lambda r: r.subset).items())
    ]


def upper_median(values: Sequence[float]) -> float:
    """The middle value; of two middles, the upper one."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


class LabelLine(Frozen):
    """One label: its class under each profile it ran under, its best class, who reproduces it."""

    location: str
    language: str
    classes: dict[str, AuditClass] = Field(description="profile -> class")
    best_class: AuditClass
    reproduced_by: list[str]


def label_lines(rows: Sequence[AuditRow]) -> dict[str, list[LabelLine]]:
    """subset -> its labels, by location. Two locations may hold the same record (a release's duplicates,
    one record id): each location gets its record's best row."""
    best_of_record = best_rows(rows)
    best = {row.location: best_of_record[row.record_id] for row in rows}
    reproducing = reproducing_profiles(rows)
    lines = {}
    for subset, group in sorted(group_by(rows, lambda r: r.subset).items()):
        classes: dict[str, dict[str, AuditClass]] = defaultdict(dict)
        for row in group:
            classes[row.location][row.profile] = row.audit_class
        lines[subset] = [
            LabelLine(
                location=location,
                language=best[location].language,
                classes=by_profile,
                best_class=best[location].audit_class,
                reproduced_by=reproducing.get(location, []),
            )
            for location, by_profile in sorted(classes.items())
        ]
    return lines
