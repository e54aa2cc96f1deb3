"""One spec per language (see base.py); adding a language is one new file plus one line in REGISTRY.

The registry is the core layer's vocabulary of languages (docs/architecture.md): sources, stages and
sandboxes read it, and every per-language table (upstream aliases, fence tags, comment syntax, Docker
families, Debian packages) is derived here or from the specs on demand, never copied, so a language
registered later (a test's throwaway one) is seen everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pipeline.errors import ConfigurationError
from pipeline.plugins import Registry
from pipeline.vocabulary import Language
from sandboxes.languages import (
    bash,
    c,
    cpp,
    csharp,
    d,
    go,
    java,
    javascript,
    julia,
    lean4,
    lua,
    perl,
    php,
    python,
    r,
    racket,
    ruby,
    rust,
    scala,
    swift,
    typescript,
)
from sandboxes.languages.base import WORKDIR, AcceptedSettings, LanguageSpec, tool_family

if TYPE_CHECKING:  # the record types are annotations here: the registry needs none of them to load
    from pipeline.records import ExecutionSetting, Program, RunRequest

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
        typescript.SPEC,
        d.SPEC,
        go.SPEC,
        scala.SPEC,
        swift.SPEC,
        julia.SPEC,
        lua.SPEC,
        php.SPEC,
        perl.SPEC,
        r.SPEC,
        ruby.SPEC,
        racket.SPEC,
        bash.SPEC,
        lean4.SPEC,
    )
}
REGISTRY = Registry("surge.languages", LanguageSpec, lambda spec: spec.language, REGISTRY)  # + plug-ins

SELF_TEST_OUTPUT = "surge self-test"

__all__ = [
    "REGISTRY",
    "SELF_TEST_OUTPUT",
    "WORKDIR",
    "AcceptedSettings",
    "LanguageSpec",
    "image_families",
    "language_aliases",
    "parse_language",
    "program_setting_refusal",
    "refuse_unrunnable",
    "setting_refusal",
    "setup_packages",
    "spec_for",
    "spelled_standard",
    "version_flag",
]


def spec_for(language: Language | str) -> LanguageSpec:
    try:
        return REGISTRY[Language(language)]
    except (KeyError, ValueError):
        raise ConfigurationError(
            f"no sandbox spec for language {str(language)!r}", hint=f"known: {_known()}"
        ) from None


def setting_refusal(language: Language | str, setting: ExecutionSetting) -> str | None:
    """Why `language`'s toolchain cannot take `setting` (its spec's ``settings`` say), or None."""
    return spec_for(language).setting_refusal(setting)


def program_setting_refusal(program: Program, setting: ExecutionSetting) -> str | None:
    """Why `program` cannot run under `setting`, or None: its language has no spec, its language's
    toolchain cannot take the setting, or the program builds itself with its run_instruction, which no
    setting reaches.

    A record is an open description (a Program of any language string validates), so this is asked
    where programs enter (a programs file's lines, a release's records) and again by the sandbox before a
    batch starts (``refuse_unrunnable``): nothing runs under a setting its toolchain cannot take, where
    g++ on a Python file would be recorded as the program's compile error."""
    if Language(program.language) not in REGISTRY:
        return f"unknown language {str(program.language)!r} (known: {_known()})"
    if program.run_instruction and setting != type(setting)():  # any setting but the default
        return "the program is built by its own run_instruction, which no setting reaches"
    return setting_refusal(program.language, setting)


def refuse_unrunnable(requests: Iterable[RunRequest]) -> None:
    """ValueError naming the first request no sandbox may run (``program_setting_refusal``): the caller
    built it past the checks where programs enter, and none of the batch has run."""
    for request in requests:
        if refusal := program_setting_refusal(request.program, request.setting):
            raise ValueError(f"run {request.run_id} refused before the batch started: {refusal}")


def language_aliases() -> dict[str, Language]:
    """Upstream spellings (McEval file names, DebugBench shard prefixes, SURGE's language field)."""
    return {
        alias: spec.language
        for spec in REGISTRY.values()
        for alias in (spec.language.value, *spec.aliases, *spec.standard_spellings)
    }


def spelled_standard(name: str | None) -> str | None:
    """The standard an upstream spelling names with its language ("C++14": c++14), else None."""
    spelled = (name or "").strip().lower()
    return next((spelled for spec in REGISTRY.values() if spelled in spec.standard_spellings), None)


def parse_language(name: str) -> Language:
    """Map an upstream language name to a sandbox language, or raise ValueError naming the choices."""
    try:
        return language_aliases()[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown language {name!r} (known: {_known()})") from None


def setup_packages() -> tuple[str, ...]:
    """The Debian packages `make setup` installs for the languages, in registry order."""
    return tuple(dict.fromkeys(p for spec in REGISTRY.values() for p in spec.setup_packages))


def image_families() -> tuple[str, ...]:
    """The Docker image families (dockerfiles/<family>/), in registry order."""
    return tuple(dict.fromkeys(spec.image_family for spec in REGISTRY.values()))


def version_flag(tool: str) -> str:
    """The argument that makes `tool` print its version line: its spec's ``version_flags`` (by the
    executable's name, so a profile's path or versioned name finds it too), else ``--version``."""
    name = os.path.basename(tool)
    for spec in REGISTRY.values():
        for candidate in (name, tool_family(name)):
            if candidate in spec.version_flags:
                return spec.version_flags[candidate]
    return "--version"


def _known() -> str:
    return ", ".join(sorted(lang.value for lang in REGISTRY))
