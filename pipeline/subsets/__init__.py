"""One spec per subset (see base.py); a new subset is one new file plus one line in REGISTRY."""

from __future__ import annotations

from pipeline.errors import ConfigurationError
from pipeline.subsets import bg, cl, dr, fl, ml, pyver, rl, sc, tc
from pipeline.subsets.base import Candidate, ConstructionMethod, ProgramPlan, SubsetSpec, Unrunnable

REGISTRY: dict[str, SubsetSpec] = {
    spec.name: spec for spec in (ml.SPEC, cl.SPEC, rl.SPEC, sc.SPEC, tc.SPEC, bg.SPEC, dr.SPEC, fl.SPEC)
}
REGISTRY[pyver.SPEC.name] = pyver.SPEC  # ours, not SURGE's: the example of a new subset (docs/build.md)
# SURGE's eight, as released: what the release's audit, the card's facts and released prompts cover.
RELEASED: dict[str, SubsetSpec] = {name: spec for name, spec in REGISTRY.items() if spec.upstream_release}


def subset_spec(name: str) -> SubsetSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown subset {name!r}", hint=f"use one of: {', '.join(REGISTRY)}"
        ) from None


__all__ = [
    "REGISTRY",
    "RELEASED",
    "Candidate",
    "ConstructionMethod",
    "ProgramPlan",
    "SubsetSpec",
    "Unrunnable",
    "subset_spec",
]
