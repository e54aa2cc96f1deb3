"""Lean Workbook (Hugging Face internlm/Lean-Workbook) and Goedel-Prover's proofs of it.

Both are Hugging Face dataset repositories whose data files are Git LFS objects: `surge pull` fetches
them with `git lfs pull` (or stops and says to), and the readers refuse a pointer file.

- ``lean_workbook``: ``lean_workbook.json``, a JSON list of {natural_language_statement, answer, tags,
  formal_statement, split, proof}; one item per formal statement (Lean 4, Mathlib).
- ``lean_workbook_proofs``: Goedel-LM/Lean-workbook-proofs, ``data/train-*.parquet`` of {problem_id,
  full_proof}; one item per released proof. No revision is published for it, so it is not pinned: the
  commit checked out is recorded in the pull record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pipeline.records import Language
from sources.base import (
    Loaded,
    Source,
    is_lfs_pointer_file,
    missing_fields,
    quarantine,
    raw_json,
    read_json_list,
)

THEOREM_NAME = re.compile(r"^\s*theorem\s+(?P<name>[^\s:({\[]+)")


def theorem_name(formal_statement: str) -> str | None:
    match = THEOREM_NAME.match(formal_statement)
    return match["name"] if match else None


def read_statements(checkout: Path, commit: str) -> Iterator[Loaded]:
    name = WORKBOOK.name
    for path, relative in WORKBOOK.files(checkout):
        for parsed in read_json_list(name, path, relative, ("formal_statement",)):
            if not isinstance(parsed, tuple):
                yield parsed
                continue
            index, record = parsed
            statement = record["formal_statement"]
            yield WORKBOOK.item(
                key=theorem_name(statement) or f"{record.get('split', 'lean_workbook')}[{index}]",
                commit=commit,
                path=relative,
                locator=index,
                text=statement,
                language=Language.LEAN4,
                upstream_language="Lean 4",
                fields=record,
            )


def read_proofs(checkout: Path, commit: str) -> Iterator[Loaded]:
    import pyarrow.parquet as pq  # only this reader needs Parquet input

    name = PROOFS.name
    for path, relative in PROOFS.files(checkout):
        if is_lfs_pointer_file(path):
            yield quarantine(name, relative, "Git LFS pointer, not data (run `git lfs pull`)")
            continue
        try:
            rows = pq.read_table(path, columns=["problem_id", "full_proof"]).to_pylist()
        except Exception as error:  # pyarrow raises several types for a corrupt or foreign file
            yield quarantine(name, relative, f"unreadable Parquet: {error}")
            continue
        for index, row in enumerate(rows):
            if missing_fields(row, ("problem_id", "full_proof")):
                yield quarantine(
                    name, f"{relative}[{index}]", "missing problem_id or full_proof", raw_json(row)
                )
                continue
            yield PROOFS.item(
                key=row["problem_id"],
                commit=commit,
                path=relative,
                locator=index,
                text=row["full_proof"],
                language=Language.LEAN4,
                upstream_language="Lean 4",
                fields=row,
            )


WORKBOOK = Source(
    name="lean_workbook",
    url="https://huggingface.co/datasets/internlm/Lean-Workbook",
    commit="2e066e3",
    licence="Apache-2.0",
    kind="hf",
    paths=("lean_workbook.json",),
    read=read_statements,
    description="Lean Workbook + Plus formal statements (Lean 4), ~140k (SURGE fl)",
)

PROOFS = Source(
    name="lean_workbook_proofs",
    url="https://huggingface.co/datasets/Goedel-LM/Lean-workbook-proofs",
    commit=None,
    licence="see dataset card (Goedel-LM/Lean-workbook-proofs)",
    kind="hf",
    paths=("data/train-*.parquet",),
    read=read_proofs,
    description="Goedel-Prover's released Lean Workbook proofs, 29,750 (SURGE fl)",
)
