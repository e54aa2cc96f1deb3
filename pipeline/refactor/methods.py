"""One small spec per construction method: its prompt, the values it needs, how the answer is used.

A new source is one new spec here plus one prompt file. Upstream fields are read defensively (``.get``)
because
source adapters evolve; a missing field shows up as an empty section of the prompt, not a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pipeline.errors import ConfigurationError
from pipeline.records import ExecutionSetting, LabelProtocol, Language, Program, ProgramFile, SourceItem
from sandboxes.languages import spec_for

# SURGE bg's run protocol names the files test.py / test.cpp / <Class>.java (notes/surge-ground-truth.md).
BG_FILE_NAMES: dict[Language, str] = {
    Language.PYTHON: "test.py",
    Language.CPP: "test.cpp",
    Language.JAVA: "Main.java",
}


def file_name(language: Language, source: str, names: dict[Language, str] | None = None) -> str:
    """The refactored file's name: the spec's (Java: the public class), or `names`' for its language."""
    return spec_for(language).refactor_file_name(source, default=(names or {}).get(language))


@dataclass(frozen=True)
class Method:
    name: str
    prompt: str  # prompt file name (newest version unless pinned)
    values: Callable[[SourceItem, Language], dict[str, Any]]
    answer: str = "code"  # code: a whole program; input: an stdin input for the upstream program
    rate_difficulty: bool = False  # competition items get a 1-5 difficulty
    default_language: Language = Language.PYTHON
    setting: ExecutionSetting = field(default_factory=ExecutionSetting)

    def language(self, item: SourceItem) -> Language:
        return item.language or _solution_language(item) or self.default_language


# SURGE cl is Python, C++ and JavaScript; a write-up with several solutions uses the first of these.
SOLUTION_PREFERENCE = (Language.PYTHON, Language.CPP, Language.JAVASCRIPT, Language.JAVA)


def _solution_language(item: SourceItem) -> Language | None:
    offered = {s.get("language") for s in item.fields.get("solutions", []) if isinstance(s, dict)}
    return next((lang for lang in SOLUTION_PREFERENCE if lang.value in offered), None)


def _common(item: SourceItem, language: Language) -> dict[str, Any]:
    return {
        "language": spec_for(language).display_name,
        "fence": spec_for(language).fence_name,
        "entry_hint": spec_for(language).entry_hint,
        "text": item.text,
        "path": item.upstream_path,
    }


def _mceval(item: SourceItem, language: Language) -> dict[str, Any]:
    f = item.fields
    return {
        **_common(item, language),
        "prompt": f.get("prompt", ""),
        "solution": f.get("canonical_solution", ""),
        "tests": f.get("test", ""),
    }


def _debugbench(item: SourceItem, language: Language) -> dict[str, Any]:
    f = item.fields
    examples = f.get("examples", "")
    if isinstance(examples, list):
        examples = "\n\n".join(str(e) for e in examples)
    return {
        **_common(item, language),
        "slug": f.get("slug", item.key),
        "description": f.get("description", ""),
        "examples": examples,
        "oracle_code": oracle_code(item),
    }


def oracle_code(item: SourceItem) -> str:
    return str(item.fields.get("oracle_code") or item.fields.get("solution") or "")


def buggy_code(item: SourceItem) -> str:
    return str(item.fields.get("buggy_code") or item.text or "")


METHODS: dict[str, Method] = {
    "mceval": Method("mceval", "mceval", _mceval),
    "leetcode": Method("leetcode", "leetcode", _common, rate_difficulty=True),
    "debugbench": Method("debugbench", "debugbench", _debugbench),
    "ojcode": Method(
        "ojcode",
        "ojcode",
        _common,
        answer="input",
        rate_difficulty=True,
        default_language=Language.CPP,
        setting=ExecutionSetting(compiler="g++", standard="c++14"),
    ),
}


def method_for(item: SourceItem, override: str | None = None) -> Method:
    name = override or item.source.lower()
    if name in METHODS:
        return METHODS[name]
    for known in METHODS:  # 'azl-leetcode', 'debugbench-hf', ...
        if known in name:
            return METHODS[known]
    raise ConfigurationError(
        f"no refactor method for source {item.source!r}",
        hint=f"pass --method with one of: {', '.join(METHODS)}",
    )


def code_program(item: SourceItem, method: Method, source: str, prompt_tag: str, **kw: Any) -> Program:
    language = method.language(item)
    return Program(
        language=language,
        files=(ProgramFile(path=file_name(language, source), content=source),),
        origin=_origin(item, method, prompt_tag),
        **kw,
    )


def bg_program(item: SourceItem, method: Method, source: str, prompt_tag: str) -> Program:
    language = method.language(item)
    return Program(
        language=language,
        files=(ProgramFile(path=file_name(language, source, BG_FILE_NAMES), content=source),),
        protocol=LabelProtocol.COMBINED_WITH_PREFIX,
        origin={**_origin(item, method, prompt_tag), "variant": "buggy"},
    )


def _origin(item: SourceItem, method: Method, prompt_tag: str) -> dict[str, Any]:
    return {
        "source": item.source,
        "key": item.key,
        "item_id": item.item_id,
        "method": method.name,
        "prompt": prompt_tag,
    }


def swap_in(program_source: str, oracle: str, replacement: str) -> str | None:
    """Replace the oracle block (lines compared without trailing spaces) by `replacement`; None if absent."""
    lines = program_source.splitlines()
    wanted = [line.rstrip() for line in oracle.strip("\n").splitlines()]
    if not wanted:
        return None
    stripped = [line.rstrip() for line in lines]
    for start in range(len(lines) - len(wanted) + 1):
        if stripped[start : start + len(wanted)] == wanted:
            swapped = lines[:start] + replacement.strip("\n").splitlines() + lines[start + len(wanted) :]
            return "\n".join(swapped) + "\n"
    return None
