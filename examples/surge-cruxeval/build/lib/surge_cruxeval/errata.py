"""A corrected ``cruxeval.jsonl`` for `surge audit --errata`: the file as read, line for line, where a label
the audit can stand behind replaces ``output`` and the line gains a ``corrections`` note; a flagged line
gains an ``audit`` note (its class and reason) and keeps its output. Every other line is byte for byte the
one read, so a diff of the two files is the errata."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pipeline.subsets.corrections import Erratum


def write_corrected(path: Path, audited: Mapping[int, Erratum]) -> str:
    lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)
    return "".join(corrected_line(line, audited.get(number)) for number, line in enumerate(lines))


def corrected_line(line: str, item: Erratum | None) -> str:
    if item is None or item.status == "kept":
        return line
    entry = json.loads(line)
    if item.corrected and item.our_label is not None:
        entry["corrections"] = {"field": "output", "released": entry.get("output"), **item.note()}
        entry["output"] = item.our_label.rstrip("\n")
    else:
        entry["audit"] = item.note()
    ending = line[len(line.rstrip("\r\n")) :]
    return json.dumps(entry, ensure_ascii=False) + (ending or "\n")
