"""dr's snippet library: one small .cpp file per program, its note and holes in its first lines.

A snippet file opens with a one-line note of what makes its output depend on the toolchain, then
optionally the holes its text leaves for sampled constants, then the program:

    // note: signed overflow is undefined: -O1 and up fold `x + J > x` to true
    // holes: K=1..50 J=1..50 MODE=a|b
    #include <cstdio>
    ...

``NAME=LOW..HIGH`` draws an integer, ``NAME=a|b|c`` one of the texts. The two header lines are not part
of the program (a note would tell the model the answer, and would move every diagnostic's line number).
``released_snippets`` turns SURGE's own dr programs into snippets without holes (``--templates``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from pipeline.records import content_id
from pipeline.templates.base import SNIPPETS_DIR, SnippetTemplate, ValueSampler, choice, integer
from sources.surge_release import ReleasedRecord

NOTE = "// note:"
HOLES = "// holes:"
_RANGE = re.compile(r"^(?P<low>-?\d+)\.\.(?P<high>-?\d+)$")


def parse_snippet(name: str, text: str) -> SnippetTemplate:
    """One snippet file's template; ValueError names the file and what its header lacks."""
    lines = text.splitlines(keepends=True)
    if not lines or not lines[0].startswith(NOTE):
        raise ValueError(f"{name}: the first line must be `{NOTE} <what makes it toolchain-dependent>`")
    note = lines[0].removeprefix(NOTE).strip()
    holes: dict[str, ValueSampler] = {}
    body = lines[1:]
    if body and body[0].startswith(HOLES):
        holes = dict(_hole(name, spec) for spec in body[0].removeprefix(HOLES).split())
        body = body[1:]
    program = "".join(body)
    missing = [hole for hole in holes if f"@@{hole}@@" not in program]
    if missing:
        raise ValueError(f"{name}: holes {missing} are declared but not used")
    return SnippetTemplate(name, holes, note, text=program)


def _hole(name: str, spec: str) -> tuple[str, ValueSampler]:
    hole, _, values = spec.partition("=")
    if not hole or not values:
        raise ValueError(f"{name}: hole {spec!r} is not NAME=LOW..HIGH or NAME=a|b")
    if match := _RANGE.match(values):
        return hole, integer(int(match["low"]), int(match["high"]))
    return hole, choice(*values.split("|"))


@cache
def library_snippets(folder: Path = SNIPPETS_DIR) -> tuple[SnippetTemplate, ...]:
    """Every snippet file of the library, by name: the order round robin uses (read once, when asked)."""
    return tuple(
        parse_snippet(path.stem, path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.cpp"))
    )


def released_snippets(records: Iterable[ReleasedRecord]) -> list[SnippetTemplate]:
    """SURGE's dr programs (the records of one subset, as load_release reads them for it) as snippets
    without holes: one per distinct program (its rows share one)."""
    seen: dict[str, SnippetTemplate] = {}
    for record in records:
        if record.question.strip() and record.question not in seen:
            name = f"surge-{record.subset}-{content_id('dr-program', record.question)[:12]}"
            seen[record.question] = SnippetTemplate(
                name, {}, "SURGE's release", text=record.question, origin="surge-release"
            )
    return list(seen.values())
