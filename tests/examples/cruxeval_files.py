"""The CRUXEval example package (examples/surge-cruxeval): where it is, its bundled records, and files of
them written for a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "surge-cruxeval"
BUNDLED = PACKAGE / "src" / "surge_cruxeval" / "data" / "cruxeval.jsonl"
ALTERED_LINE = 4  # sample_3: f('bcksrut', 'q') returns 'bcksrutq'
ALTERED_OUTPUT = "'bcksrutQ'"


def bundled_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in BUNDLED.read_text().splitlines()]


def write_lines(path: Path, lines: list[Any]) -> Path:
    """``lines``: records (written as JSON) or raw text (a bad line, written as it is)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text)
    return path


def altered(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bundled records with sample_3's label changed: a wrong label the audit must catch."""
    changed = [dict(line) for line in lines]
    changed[ALTERED_LINE - 1]["output"] = ALTERED_OUTPUT
    return changed
