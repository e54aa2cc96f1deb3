"""The CRUXEval example's spec, registered for one test as a plug-in's would be."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.subsets import REGISTRY, SubsetSpec, register_subset, unregister_subset
from tests.examples.cruxeval_files import PACKAGE


@pytest.fixture
def cruxeval(monkeypatch: pytest.MonkeyPatch) -> Iterator[SubsetSpec]:
    """The example's spec, registered for one test with ``register_subset`` (as a plug-in's would be)."""
    monkeypatch.syspath_prepend(str(PACKAGE / "src"))
    from surge_cruxeval.subset import SPEC

    known = REGISTRY.get(SPEC.name)  # an installed copy of the package, if the registry read one
    register_subset(SPEC)
    try:
        yield SPEC
    finally:
        if known is not None:
            register_subset(known)
        else:
            unregister_subset(SPEC.name)
