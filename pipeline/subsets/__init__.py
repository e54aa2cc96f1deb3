"""One spec per subset (see base.py); a new subset is one new file plus one ``register_subset`` call.

``REGISTRY`` is the one table of subsets: every stage and the CLI's ``--subset`` choices read it when
they run, so a subset registered later (a test's, or a plug-in's) is seen by all. The specs import what
they are made of (the build's construction methods, the scoring rules, the release's reader); nothing
they import looks the registry up: the modules that do (the build's driver, pipeline/build/steps.py; the
release read with every subset known, release.py; scores by subset, pipeline/scoring/by_subset.py) sit
above it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.errors import ConfigurationError
from pipeline.plugins import Registry
from pipeline.records import QuarantinedRecord
from pipeline.subsets import bg, cl, dr, fl, ml, pyver, rl, sc, tc
from pipeline.subsets.base import (
    Candidate,
    ConstructionMethod,
    ProgramPlan,
    SubsetSpec,
    Unrunnable,
    per_index,
)
from sources import surge_release
from sources.surge_release import ReleasedRecord, ReleaseSubset

# The built-in specs below, and the plug-ins of the entry-point group at the first lookup.
REGISTRY: Registry[str, SubsetSpec] = Registry("surge.subsets", SubsetSpec, lambda spec: spec.name, {})
# SURGE's eight, as released: what the release's audit, the card's facts and released prompts cover.
RELEASED: dict[str, SubsetSpec] = {}


def register_subset(spec: SubsetSpec) -> SubsetSpec:
    """Add a subset (or replace the one of that name); refused when its category number is another's
    (installed plug-ins included: registering looks the registry up)."""
    taken = {other.category: name for name, other in REGISTRY.items() if name != spec.name}
    if spec.category in taken:
        raise ConfigurationError(
            f"subset {spec.name!r} takes category {spec.category}, which is {taken[spec.category]!r}'s",
            hint=f"give it a number no subset has (taken: {', '.join(map(str, sorted(taken)))})",
        )
    return _put(spec)


def _put(spec: SubsetSpec) -> SubsetSpec:
    """Into the registry without looking it up, so that importing reads no installed distribution."""
    REGISTRY[spec.name] = spec
    RELEASED.pop(spec.name, None)
    if spec.upstream_release:
        RELEASED[spec.name] = spec
    return spec


def unregister_subset(name: str) -> None:
    REGISTRY.pop(name, None)
    RELEASED.pop(name, None)


for _spec in (ml.SPEC, cl.SPEC, rl.SPEC, sc.SPEC, tc.SPEC, bg.SPEC, dr.SPEC, fl.SPEC):
    _put(_spec)
_put(pyver.SPEC)  # ours, not SURGE's: the example of a new subset (docs/build.md)


def subset_spec(name: str) -> SubsetSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown subset {name!r}", hint=f"use one of: {', '.join(REGISTRY)}"
        ) from None


class SubsetNames:
    """The registry's names as they are when asked: argparse reads ``choices`` when it checks a value
    and when it prints help, so ``--subset`` accepts a subset registered after the parser was built."""

    def __contains__(self, name: object) -> bool:
        return name in REGISTRY

    def __iter__(self) -> Iterator[str]:
        return iter(list(REGISTRY))

    def __len__(self) -> int:
        return len(REGISTRY)


SUBSET_NAMES = SubsetNames()


def release_catalog() -> dict[str, ReleaseSubset]:
    """What the release's reader needs of each subset: its category number, its one language and the
    reader of its own file format (if it has one)."""
    return {name: spec.release_entry() for name, spec in REGISTRY.items()}


def load_release(
    path: Path | str, subsets: set[str] | None = None
) -> tuple[list[ReleasedRecord], list[QuarantinedRecord]]:
    """The release's records (and the quarantined, with reasons) read with every registered subset known:
    SURGE's eight, ours and the plug-ins' (their own file formats included)."""
    return surge_release.load_release(path, subsets, release_catalog())


__all__ = [
    "REGISTRY",
    "RELEASED",
    "SUBSET_NAMES",
    "SubsetNames",
    "Candidate",
    "ConstructionMethod",
    "ProgramPlan",
    "SubsetSpec",
    "Unrunnable",
    "load_release",
    "per_index",
    "register_subset",
    "release_catalog",
    "subset_spec",
    "unregister_subset",
]
