"""Imports point one way (docs/architecture.md): core < adapters < stages < flows < api < cli.

Every import in the packages, lazy ones inside functions included, is read from the source with `ast`
and checked against the layer of the importing module. A new module lands in a layer by its path, so the
picture in the docs cannot rot without this test failing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pipeline", "sandboxes", "sources", "flows")

CORE, ADAPTERS, STAGES, FLOWS, API, CLI = 1, 2, 3, 4, 5, 6
CORE_MODULES = {
    "pipeline.records",
    "pipeline.vocabulary",
    "pipeline.bounds",
    "pipeline.stage_results",
    "pipeline.observe",
    "pipeline.schema",
    "pipeline.store",
    "pipeline.parts",
    "pipeline.part_ids",
    "pipeline.errors",
    "pipeline.stopping",
    "pipeline.stealing",
    "pipeline.plugins",
    "pipeline",
    # The backends' vocabulary, like the languages': their names, the one interface and the specs'
    # shape, over pipeline.records; a run request's default backend is read from it, and the launchers
    # themselves are reached through importlib only (sandboxes/backends/registry.py).
    "sandboxes.backends.registry",
    "sandboxes.backends.base",
}

# Imports that cross a line on purpose, each with its reason. Keep this list short; empty is the goal.
ALLOWED: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> int:
    top = module.split(".")[0]
    # The language registry is shared vocabulary, not an adapter: its specs are pure data and argv
    # building over pipeline.records, read by sources (upstream aliases), stages (fence tags, comment
    # syntax) and sandboxes alike, so a new language is one file and one registry line.
    if module in CORE_MODULES or module == "sandboxes.languages" or module.startswith("sandboxes.languages."):
        return CORE
    # A proof language's checker is a field of its spec (lean4's: a warm REPL pool), so the Lean checker
    # sits with the languages; it reads pipeline.records and nothing above it.
    if module == "sandboxes.lean" or module.startswith("sandboxes.lean."):
        return CORE
    if top in ("sources", "sandboxes"):
        return ADAPTERS
    if top == "flows":
        return FLOWS
    # The library's stage functions (typed options in, typed results out) run flows; the CLI is over them.
    if module == "pipeline.api" or module == "pipeline.stages" or module.startswith("pipeline.stages."):
        return API
    if module == "pipeline.cli" or module.startswith("pipeline.commands"):
        return CLI
    return STAGES


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def project_modules() -> set[str]:
    names = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "samples" not in path.relative_to(ROOT).parts:
                names.add(module_name(path))
    return names


def violations() -> list[str]:
    known = project_modules()
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "samples" in path.relative_to(ROOT).parts:
                continue
            module = module_name(path)
            for target in sorted(imported_modules(path, module)):
                if target not in known:  # `from x import name` where name is not a module
                    continue
                if (module, target) in ALLOWED:
                    continue
                if layer_of(target) > layer_of(module):
                    found.append(
                        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
                    )
                elif {module.split(".")[0], target.split(".")[0]} == {"sources", "sandboxes"} and (
                    layer_of(module) == layer_of(target) == ADAPTERS
                ):
                    found.append(f"{module} imports {target}: sources and sandboxes never import each other")
    return found


def test_imports_point_down_the_layers() -> None:
    assert violations() == []


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("pipeline.records", CORE),
        ("pipeline.store", CORE),
        ("pipeline.parts", CORE),
        ("sandboxes.backends.bwrap", ADAPTERS),
        ("sandboxes.backends.registry", CORE),
        ("sandboxes.languages", CORE),
        ("sandboxes.languages.java", CORE),
        ("sandboxes.lean.backend", CORE),
        ("sandboxes.toolchains", ADAPTERS),
        ("sources.surge_release", ADAPTERS),
        ("pipeline.audit.plan", STAGES),
        ("flows.run_programs", FLOWS),
        ("pipeline.stages.run", API),
        ("pipeline.api", API),
        ("pipeline.commands.run", CLI),
    ],
)
def test_modules_fall_in_the_layers_the_docs_draw(module: str, layer: int) -> None:
    assert layer_of(module) == layer


def test_the_checker_sees_a_lazy_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from pipeline.commands import run\n    from . import sibling\n")
    assert "pipeline.commands.run" in imported_modules(source, "pipeline.records")
    assert layer_of("pipeline.commands.run") > layer_of("pipeline.records")
