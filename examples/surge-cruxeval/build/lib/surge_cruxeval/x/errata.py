"""A corrected CRUXEval-X language file for `surge audit --errata`: the file as read, where a flagged
program gains an ``audit`` note (its class and reason) and keeps its code. Nothing is rewritten: a failed
check's run says the check fails, not what its expected value should be. A file with nothing flagged is
the file as read, byte for byte; one with a flag is written in the layout it was read in (indent, escapes,
last newline), so a diff of the two files is the notes."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pipeline.subsets.corrections import Erratum

Dump = Callable[[Any], str]
LAYOUTS = [(indent, ascii_only) for indent in (4, 2, None) for ascii_only in (False, True)]


def write_corrected(path: Path, audited: Mapping[int, Erratum]) -> str:
    text = path.read_bytes().decode("utf-8")
    noted = {index: item for index, item in audited.items() if item.status != "kept"}
    if not noted:
        return text
    entries = json.loads(text)
    dump = layout_of(text, entries)
    for index, item in noted.items():
        if isinstance(entries[index], dict):
            entries[index]["audit"] = item.note()
    return dump(entries)


def layout_of(text: str, entries: Any) -> Dump:
    """The json.dumps settings that write ``entries`` back as ``text`` (upstream's: indent 4, characters
    as they are); the first of them when none does."""
    ending = text[len(text.rstrip()) :]
    for indent, ascii_only in LAYOUTS:

        def dump(value: Any, indent: int | None = indent, ascii_only: bool = ascii_only) -> str:
            return json.dumps(value, indent=indent, ensure_ascii=ascii_only) + ending

        if dump(entries) == text:
            return dump
    return lambda value: json.dumps(value, indent=4, ensure_ascii=False) + ending
