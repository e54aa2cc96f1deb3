"""The CRUXEval example's specs (its two subsets, CRUXEval-X's harness languages), registered for one test
as a plug-in's would be."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.subsets import REGISTRY, SubsetSpec, register_subset, unregister_subset
from sandboxes.languages import REGISTRY as LANGUAGES
from sandboxes.languages import LanguageSpec
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


@pytest.fixture
def cruxeval_x(monkeypatch: pytest.MonkeyPatch) -> Iterator[SubsetSpec]:
    """CRUXEval-X's spec and its harness languages, registered for one test (as their entry points would)."""
    monkeypatch.syspath_prepend(str(PACKAGE / "src"))
    from surge_cruxeval.x.subset import SPEC

    harnesses = harness_languages()
    known = REGISTRY.get(SPEC.name)
    installed = {spec.language: LANGUAGES.get(spec.language) for spec in harnesses}
    register_subset(SPEC)
    for spec in harnesses:
        LANGUAGES[spec.language] = spec
    try:
        yield SPEC
    finally:
        for language, before in installed.items():
            if before is not None:
                LANGUAGES[language] = before
            else:
                dict.pop(LANGUAGES, language, None)
        if known is not None:
            register_subset(known)
        else:
            unregister_subset(SPEC.name)


def harness_languages() -> list[LanguageSpec]:
    """CRUXEval-X's harness languages: Java's and C#'s, and C++'s, D's and Go's where their core specs
    exist."""
    from surge_cruxeval.x.harness import CSHARP, JAVA

    try:
        from surge_cruxeval.x.compiled import CPP, GO, D
    except ImportError:  # no core D or Go spec in this tree
        return [JAVA, CSHARP]
    return [JAVA, CSHARP, CPP, D, GO]
