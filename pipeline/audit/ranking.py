"""Ranking over profiles: each label's best row, the profiles that reproduce it, the best profile."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field

from pipeline.audit.rows import CLASS_RANK, REPRODUCED, AuditClass, AuditRow
from pipeline.records import Frozen


class ProfileStanding(Frozen):
    """One profile's place in the ranking: its runs' labels, reproduced, unexplained and mean score."""

    profile: str
    reproduced: int
    unexplained: int
    labels: int = Field(description="the profile's runs, one per label it ran")
    mean_score: float


class BestProfile(Frozen):
    """The profile that reproduces the most labels, the profiles tied with it (itself first), and every
    profile in ranking order."""

    profile: str
    tied: list[str]
    ranking: list[ProfileStanding]

    @property
    def tied_with(self) -> list[str]:
        """The other profiles as good as the best."""
        return [name for name in self.tied if name != self.profile]


def best_rows(rows: Iterable[AuditRow]) -> dict[str, AuditRow]:
    """record id -> its best row over every profile (CLASS_RANK order)."""
    best: dict[str, AuditRow] = {}
    for row in rows:
        kept = best.get(row.record_id)
        if kept is None or CLASS_RANK[row.audit_class] < CLASS_RANK[kept.audit_class]:
            best[row.record_id] = row
    return best


def reproducing_profiles(rows: Iterable[AuditRow]) -> dict[str, list[str]]:
    """record location -> the profiles under which its label is reproduced (exactly or normalised)."""
    found: dict[str, list[str]] = {}
    for row in rows:
        names = found.setdefault(row.location, [])
        if row.audit_class in REPRODUCED:
            names.append(row.profile)
    return {location: sorted(set(names)) for location, names in found.items()}


def best_profile(rows: Iterable[AuditRow]) -> BestProfile | None:
    """The profile that reproduces the most labels (ties: fewer unexplained, higher mean score, name)."""
    tally: dict[str, list[float]] = {}
    reproduced: dict[str, int] = {}
    unexplained: dict[str, int] = {}
    for row in rows:
        tally.setdefault(row.profile, []).append(row.score or 0.0)
        reproduced[row.profile] = reproduced.get(row.profile, 0) + (row.audit_class in REPRODUCED)
        unexplained[row.profile] = unexplained.get(row.profile, 0) + (row.audit_class is AuditClass.MISMATCH)
    if not tally:
        return None

    def mean(name: str) -> float:
        return sum(tally[name]) / len(tally[name])

    ranking = sorted(tally, key=lambda n: (-reproduced[n], unexplained[n], -mean(n), n))
    top = ranking[0]
    return BestProfile(
        profile=top,
        # profiles that reproduce and leave unexplained as many labels as the best (the name breaks the tie)
        tied=[n for n in ranking if (reproduced[n], unexplained[n]) == (reproduced[top], unexplained[top])],
        ranking=[
            ProfileStanding(
                profile=n,
                reproduced=reproduced[n],
                unexplained=unexplained[n],
                labels=len(tally[n]),
                mean_score=round(mean(n), 4),
            )
            for n in ranking
        ],
    )
