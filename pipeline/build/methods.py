"""The build steps of the construction methods that talk to the world: an LLM (refactor, prover) or git
(repository sampling). A subset spec holds one of these functions as its ``build_batch``.

The specs are imported whenever the subset registry is, which every command does to build its parser;
these steps' modules bring the LLM client (httpx), the review queue (sqlite3) and GitPython with them.
So each function here imports its module when a build runs it, and the registry stays light. The other
methods' steps (manual implementation, dr's matrix, the differential) are light and held directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.build.failures import Built
    from pipeline.build.records import BuildConfig, BuildItem
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec


def build_refactored(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Iterative refactor (ml, cl, bg): pipeline/build/refactor.py."""
    from pipeline.build import refactor

    return refactor.build_refactored(spec, store, config, items)


def build_proofs(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Inference and verification (fl): pipeline/build/prove.py."""
    from pipeline.build import prove

    return prove.build_proofs(spec, store, config, items)


def build_repositories(spec: SubsetSpec, store: Store, config: BuildConfig, items: list[BuildItem]) -> Built:
    """Repository sampling (rl): pipeline/build/repository.py."""
    from pipeline.build import repository

    return repository.build_repositories(spec, store, config, items)
