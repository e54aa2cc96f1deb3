"""McEval (github.com/MCEVAL/McEval): ``data/<Language>.jsonl``, ~50 generation tasks per language.

The runnable text is prompt + canonical_solution + test (McEval's own completion protocol). Some
languages (AWK, ...) use a reduced schema without ``test``/``entry_point``; their items are kept with
the text they have. Languages without a sandbox spec keep ``language=None`` and their upstream name.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.records import Language
from sandboxes.languages import parse_language
from sources.base import Loaded, Source, read_jsonl

NAME = "mceval"
REQUIRED = ("task_id", "prompt", "canonical_solution")


def sandbox_language(file_stem: str) -> Language | None:
    """'C#' -> csharp, 'CPP' -> cpp, 'AWK' -> None (no sandbox spec; the item is kept)."""
    try:
        return parse_language(file_stem)
    except ValueError:
        return None


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        upstream_language = path.stem
        language = sandbox_language(upstream_language)
        for parsed in read_jsonl(NAME, path, relative, REQUIRED):
            if not isinstance(parsed, tuple):
                yield parsed
                continue
            number, record = parsed
            text = record["prompt"] + record["canonical_solution"] + str(record.get("test") or "")
            yield SOURCE.item(
                key=record["task_id"],
                commit=commit,
                path=relative,
                locator=number,
                text=text,
                language=language,
                upstream_language=upstream_language,
                fields=record,
            )


SOURCE = Source(
    name=NAME,
    url="https://github.com/MCEVAL/McEval",
    commit="09dec129dd5756447227239b3e5b47e543c2e0fd",
    licence="CC-BY-SA-4.0",
    kind="git",
    paths=("data/*.jsonl",),
    samples="mceval",
    read=read,
    description="McEval generation tasks, 40 languages (SURGE ml)",
)
