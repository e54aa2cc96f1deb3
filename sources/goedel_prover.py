"""Goedel-Prover's evaluation problems (github.com/Goedel-LM/Goedel-Prover): ``datasets/*.jsonl``.

Each line is {name, split, informal_prefix, formal_statement, goal, header}; the Lean text a prover
completes is header + informal_prefix + formal_statement (Goedel's own prompt order). SURGE fl's
records use the same ``import Mathlib`` / ``import Aesop`` header.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pipeline.records import Language
from sources.base import Loaded, Source, read_jsonl

NAME = "goedel_prover"
REQUIRED = ("name", "formal_statement")


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        for parsed in read_jsonl(NAME, path, relative, REQUIRED):
            if not isinstance(parsed, tuple):
                yield parsed
                continue
            number, record = parsed
            text = str(record.get("header") or "") + str(record.get("informal_prefix") or "")
            yield SOURCE.item(
                key=f"{path.stem}/{record['name']}",
                commit=commit,
                path=relative,
                locator=number,
                text=text + record["formal_statement"],
                language=Language.LEAN4,
                upstream_language="Lean 4",
                fields=record,
            )


SOURCE = Source(
    name=NAME,
    url="https://github.com/Goedel-LM/Goedel-Prover",
    commit="d80349d93a80305765492014f0b395cec46e5023",
    licence="MIT",
    kind="git",
    paths=("datasets/*.jsonl",),
    samples="goedel-prover",
    read=read,
    description="Goedel-Prover evaluation problems (miniF2F, ...), Lean 4 with Mathlib",
)
