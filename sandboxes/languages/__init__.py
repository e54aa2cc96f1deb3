"""One spec per language (see base.py); adding a language is one new file plus one line in REGISTRY."""

from __future__ import annotations

from pipeline.errors import ConfigurationError
from pipeline.records import Language
from sandboxes.languages import c, cpp, csharp, java, javascript, julia, lean4, python, rust
from sandboxes.languages.base import WORKDIR, LanguageSpec

REGISTRY: dict[Language, LanguageSpec] = {
    spec.language: spec
    for spec in (
        c.SPEC,
        cpp.SPEC,
        csharp.SPEC,
        java.SPEC,
        rust.SPEC,
        python.SPEC,
        javascript.SPEC,
        julia.SPEC,
        lean4.SPEC,
    )
}

SELF_TEST_OUTPUT = "surge self-test"

__all__ = ["REGISTRY", "SELF_TEST_OUTPUT", "WORKDIR", "LanguageSpec", "spec_for"]


def spec_for(language: Language | str) -> LanguageSpec:
    try:
        return REGISTRY[Language(language)]
    except (KeyError, ValueError):
        known = ", ".join(lang.value for lang in REGISTRY)
        raise ConfigurationError(
            f"no sandbox spec for language {language!r}", hint=f"known: {known}"
        ) from None
