"""Every source `surge pull` knows. A new source is one module with a ``SOURCE`` and one line here."""

from __future__ import annotations

import dataclasses

from pipeline.errors import ConfigurationError
from pipeline.plugins import Registry
from sources import debugbench, goedel_prover, lean_workbook, leetcode, mceval, ojcode, surge_release
from sources.base import Source

SOURCES: dict[str, Source] = {
    source.name: source
    for source in (
        mceval.SOURCE,
        debugbench.SOURCE,
        leetcode.SOURCE,
        ojcode.SOURCE,
        lean_workbook.WORKBOOK,
        lean_workbook.PROOFS,
        goedel_prover.SOURCE,
        surge_release.SOURCE,
    )
}
SOURCES = Registry("surge.sources", Source, lambda source: source.name, SOURCES)  # + plug-ins


def get_source(name: str, commit: str | None = None) -> Source:
    """The registered source; ``commit`` replaces its pinned revision (e.g. to try a newer one)."""
    try:
        source = SOURCES[name]
    except KeyError:
        known = ", ".join(SOURCES)
        raise ConfigurationError(f"unknown source {name!r}", hint=f"choose one of: {known}") from None
    return source if commit is None else dataclasses.replace(source, commit=commit)
