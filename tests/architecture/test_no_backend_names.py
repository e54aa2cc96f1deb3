"""A backend's name is said in its own module and the registry, nowhere else (sandboxes/backends/).

Every string literal of the packages is read with `ast`: one equal to a backend's name (as `--backend`
takes it or as run ids record it) outside sandboxes/backends/ means a stage decides something by
backend name, and a new backend would need an edit there. Ask the registry instead
(sandboxes/backends/registry.py: `spec_for`, `backend_for`, `check_available`, `DEFAULT_BACKEND`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from sandboxes.backends.registry import specs

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pipeline", "sandboxes", "sources", "flows")
OWNERS = ROOT / "sandboxes" / "backends"
# The default backend's name is a word records and the registry share (a run request's default): said
# once, below both, so that records need not import the registry.
VOCABULARY = ROOT / "pipeline" / "vocabulary.py"


def backend_names() -> set[str]:
    return {name for spec in specs() for name in (spec.name, *spec.also_recorded_as)}


def quoted_names(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of every string literal that is exactly a backend's name."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    ]


def test_no_module_outside_the_backends_names_a_backend() -> None:
    names = backend_names()
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name!r}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if not path.is_relative_to(OWNERS) and path != VOCABULARY
        for line, name in quoted_names(path.read_text(encoding="utf-8"), names)
    ]
    assert found == []


def test_the_check_sees_a_quoted_name_and_the_names_the_runs_record() -> None:
    names = backend_names()
    assert {"bwrap", "docker", "unsafe-local"} <= names
    source = 'backend = "docker" if image else chosen\nprint(f"--backend {chosen}", "a bwrap note")\n'
    assert quoted_names(source, names) == [(1, "docker")]
