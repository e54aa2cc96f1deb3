"""No import cycle anywhere in the packages: not across layers, not inside one, not through a lazy import.

The graph has one node per first-party module and one edge per import that can run: every ``import`` and
``from ... import`` found by `ast` anywhere in a module (at the top, inside a function, under any
condition) and every ``importlib.import_module`` of a literal name. Only an import under
``if TYPE_CHECKING:`` is left out, since it never runs. An import names the module it loads (``from a.b
import c`` names ``a.b.c`` when that is a module, else ``a.b``) and, since Python runs a package's
``__init__`` before its modules, the packages above that module too, except the importer's own packages,
which are always loaded before the importer itself runs.

Nothing is allowed: a cycle is reported as its shortest loop of modules, ``a -> b -> c -> a``, with the
size of the tangle (strongly connected component) it belongs to, and the test fails on the first one.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from tests.architecture.test_layers import ROOT

PACKAGES = ("pipeline", "sandboxes", "sources", "flows", "surge")
Graph = dict[str, set[str]]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def first_party(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of the packages by name (the bundled upstream samples are data, not code)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "samples" not in path.relative_to(root).parts:
                found[module_name(root, path)] = path
    return found


def type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): never run."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _names_type_checking(node.test):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def _names_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def named_imports(tree: ast.AST, package: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(base, names) of each import that can run: ``from base import names``, or (module, ()) for
    ``import module`` and ``import_module("module")``. ``package`` anchors relative imports."""
    skipped = type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from ((alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield _absolute(node, package), tuple(alias.name for alias in node.names)
        elif isinstance(node, ast.Call) and _imports_a_literal(node):
            argument = node.args[0]
            assert isinstance(argument, ast.Constant)
            yield str(argument.value), ()


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _imports_a_literal(call: ast.Call) -> bool:
    """``importlib.import_module("x")`` or ``import_module("x")`` with a literal name."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return (
        name == "import_module"
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def loaded_modules(module: str, base: str, names: tuple[str, ...], known: set[str]) -> set[str]:
    """The first-party modules one import makes ``module`` depend on."""
    targets = {f"{base}.{name}" if f"{base}.{name}" in known else base for name in names} or {base}
    own = {".".join(module.split(".")[:depth]) for depth in range(1, module.count(".") + 2)}
    loaded = set()
    for target in targets:
        parts = target.split(".")
        packages = {".".join(parts[:depth]) for depth in range(1, len(parts))}
        loaded |= {target} | (packages - own)
    return {name for name in loaded if name in known and name != module}


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> Graph:
    modules = first_party(root, packages)
    known = set(modules)
    graph: Graph = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        graph[module] = set()
        for base, names in named_imports(tree, package):
            graph[module] |= loaded_modules(module, base, names, known)
    return graph


def tangles(graph: Graph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif step not in index:
                index[step] = low[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph[step]))))
            elif step in on_stack:
                low[node] = min(low[node], index[step])
    return found


def shortest_loop(graph: Graph, component: set[str]) -> list[str]:
    """The shortest import loop inside a tangle, from its alphabetically first module on the loop."""
    best: list[str] = []
    for start in sorted(component):
        parent: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if start in graph[node]:
                loop = [node]
                while loop[-1] != start:
                    loop.append(parent[loop[-1]])
                loop = [start, *reversed(loop[:-1]), start]
                if not best or len(loop) < len(best):
                    best = loop
                break
            for step in sorted(graph[node] & component):
                if step not in parent and step != start:
                    parent[step] = node
                    queue.append(step)
    return best


def cycles(graph: Graph) -> list[str]:
    return [
        f"{' -> '.join(shortest_loop(graph, component))} (a tangle of {len(component)} modules)"
        for component in sorted(tangles(graph), key=lambda c: sorted(c))
    ]


def test_no_module_imports_itself_back() -> None:
    assert cycles(import_graph()) == []


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_lazy_loop_is_found_and_shown_as_its_shortest_cycle(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def f():\n    from pkg.c import thing\n",
            "pkg/c.py": "import importlib\n\ndef g():\n    return importlib.import_module('pkg.a')\n",
            "pkg/d.py": "from pkg import a\nfrom pkg.c import thing\n",
        },
    )
    loop = "pkg.a -> pkg.b -> pkg.c -> pkg.a (a tangle of 3 modules)"
    assert cycles(import_graph(root, ("pkg",))) == [loop]


def test_a_type_checking_import_is_no_edge_and_a_package_init_is(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/low.py": "import typing\n\nif typing.TYPE_CHECKING:\n    from pkg.reg.spec import S\n",
            "pkg/reg/__init__.py": "from pkg.reg import spec\n",
            "pkg/reg/spec.py": "from pkg import low\nfrom pkg.reg.base import B\n",
            "pkg/reg/base.py": "",
            "pkg/up.py": "from pkg.reg.base import B\n",
        },
    )
    graph = import_graph(root, ("pkg",))
    assert graph["pkg.low"] == set()  # a typing-only import never runs
    assert graph["pkg.reg.spec"] == {"pkg.low", "pkg.reg.base"}  # its own package is loaded first
    assert graph["pkg.up"] == {"pkg.reg", "pkg.reg.base"}  # importing base runs pkg/reg/__init__.py
    assert cycles(graph) == []
