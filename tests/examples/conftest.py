"""The CRUXEval example package (examples/surge-cruxeval), importable from its source folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.subsets import REGISTRY, SubsetSpec, register_subset, unregister_subset

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "surge-cruxeval"
BUNDLED = PACKAGE / "src" / "surge_cruxeval" / "data" / "cruxeval.jsonl"
ALTERED_LINE = 4  # sample_3: f('bcksrut', 'q') returns 'bcksrutq'
ALTERED_OUTPUT = "'bcksrutQ'"


@pytest.fixture
def cruxeval(monkeypatch: pytest.MonkeyPatch) -> Iterator[SubsetSpec]:
    """The example's spec, registered for one test with ``register_subset`` (as a plug-in's would be)."""
    monkeypatch.syspath_prepend(str(PACKAGE / "src"))
    from surge_cruxeval.subset import SPEC

    known = REGISTRY.get(SPEC.name)  # an installed copy of the package, if the registry read one
    register_subset(SPEC)
    try:
        yield SPEC
    finally:
        if known is not None:
            register_subset(known)
        else:
            unregister_subset(SPEC.name)


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
