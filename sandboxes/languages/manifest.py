"""The registry's package and family lists for shell scripts, read from the specs' source with the stdlib.

`make setup` runs scripts/setup-system.sh before the virtualenv (and pydantic) exists, so it cannot
import the registry. This file reads the same specs with `ast` instead: the modules REGISTRY lists in
``__init__.py`` and, in each, the literal fields of its ``SPEC = ...(...)`` call. Run it by path, with any
python3 (``-m`` would import the packages above it):

    python3 sandboxes/languages/manifest.py packages    Debian packages `make setup` installs
    python3 sandboxes/languages/manifest.py families    Docker image families `make images` builds
    python3 sandboxes/languages/manifest.py tools FAMILY the tools an image of that family must hold

tests/sandboxes/test_manifest.py checks that these lists equal the ones the imported registry derives.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def registered_modules(root: Path = HERE) -> list[str]:
    """The spec modules REGISTRY lists (``c.SPEC, cpp.SPEC, ...``), in order."""
    init = root / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.AnnAssign, ast.Assign)):  # noqa: UP038 (a tuple: any python3)
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "REGISTRY" for t in targets) and node.value:
                return [
                    n.value.id
                    for n in ast.walk(node.value)
                    if isinstance(n, ast.Attribute) and n.attr == "SPEC" and isinstance(n.value, ast.Name)
                ]
    raise SystemExit(f"manifest: no REGISTRY in {init}")


def spec_fields(module: str, root: Path = HERE) -> dict[str, Any]:
    """The literal keyword arguments of ``SPEC = ...(...)`` in sandboxes/languages/<module>.py."""
    path = root / f"{module}.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            fields: dict[str, Any] = {}
            for keyword in node.value.keywords:
                if keyword.arg is None:
                    continue
                try:
                    fields[keyword.arg] = ast.literal_eval(keyword.value)
                except ValueError:
                    continue  # Language.C, computed values: not needed here
            return fields
    raise SystemExit(f"manifest: no `SPEC = ...(...)` in {path}")


def setup_packages(root: Path = HERE) -> list[str]:
    specs = [spec_fields(m, root) for m in registered_modules(root)]
    return list(dict.fromkeys(p for spec in specs for p in spec.get("setup_packages", ())))


def image_families(root: Path = HERE) -> list[str]:
    specs = {m: spec_fields(m, root) for m in registered_modules(root)}
    missing = [m for m, spec in specs.items() if "image_family" not in spec]
    if missing:
        raise SystemExit(f"manifest: no literal image_family in {', '.join(missing)}")
    return list(dict.fromkeys(spec["image_family"] for spec in specs.values()))


def image_tools(family: str, root: Path = HERE) -> list[str]:
    """The compilers and runtimes the languages of an image family run (each spec's ``default_tool`` and
    ``run_tool``): the shared recipe checks its image holds every one."""
    specs = [spec_fields(m, root) for m in registered_modules(root)]
    mine = [spec for spec in specs if spec.get("image_family") == family]
    tools = [spec.get(field) for spec in mine for field in ("default_tool", "run_tool")]
    return list(dict.fromkeys(tool for tool in tools if tool))


def main(argv: list[str]) -> int:
    lists = {"packages": setup_packages, "families": image_families}
    if len(argv) == 2 and argv[0] == "tools":
        print(" ".join(image_tools(argv[1])))
        return 0
    if len(argv) != 1 or argv[0] not in lists:
        print(f"usage: python3 {Path(__file__).name} {{{'|'.join(lists)}}} | tools FAMILY", file=sys.stderr)
        return 2
    print(" ".join(lists[argv[0]]()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
