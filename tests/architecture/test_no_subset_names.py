"""No stage names a subset: what differs between subsets is asked of their specs (pipeline/subsets/).

Every string literal in the packages is read with `ast` (docstrings and comments may name subsets: they
explain; a literal decides). A module outside pipeline/subsets/ holding 'ml', 'dr', 'pyver'... as a
string is a per-subset branch or table that a new subset would have to edit.
"""

from __future__ import annotations

import ast

from tests.architecture.test_layers import PACKAGES, ROOT

# SURGE's eight and ours, spelled out here rather than read from the registry: the test must see a
# name even if a spec were removed.
SUBSET_NAMES = frozenset({"ml", "cl", "rl", "sc", "tc", "bg", "dr", "fl", "pyver"})
OWNERS = ("pipeline/subsets/",)  # the specs and the registry: the one place a subset is named
# Modules allowed to name a subset, each with why. Keep it short; empty is the goal.
ALLOWED: dict[str, str] = {
    # SURGE's repository numbers its eight files (ml.json is 1, ...) and leaves some languages implicit
    # (dr is C++): upstream's layout, as the misspelt category key is. `surge pull` reads the release
    # with it, below the subset registry; a new subset never edits it, and
    # tests/sources/test_release_layout.py keeps it in step with the specs.
    "sources/surge_release.py": "the upstream release's own numbering of its eight files",
}


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants (module, class, function): text for readers, not decisions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def subset_literals(source: str, filename: str) -> list[tuple[int, str]]:
    tree = ast.parse(source, filename=filename)
    skip = docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in SUBSET_NAMES
        and id(node) not in skip
    ]


def offenders() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(OWNERS) or relative in ALLOWED or "samples" in path.parts:
                continue
            found += [
                f"{relative}:{line}: {value!r}" for line, value in subset_literals(path.read_text(), relative)
            ]
    return found


def test_no_module_outside_the_subset_specs_names_a_subset() -> None:
    assert offenders() == []


def test_the_checker_sees_a_quoted_name_and_not_a_docstring() -> None:
    source = '"""ml and cl."""\n\ndef f(subset):\n    """dr"""\n    return subset == "bg" or "pyver"\n'
    assert sorted(value for _, value in subset_literals(source, "x.py")) == ["bg", "pyver"]
