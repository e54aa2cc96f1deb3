"""Following a how-to to the letter passes the tests: "Adding a language" (docs/sandboxes.md), "Adding a
source" (docs/sources.md) and "Adding a subset" (docs/build.md), each read from the docs as written."""

from __future__ import annotations

import importlib.util
import inspect
import json
import re
from pathlib import Path

import pytest

from pipeline.records import SourceItem
from pipeline.subsets import pyver
from sources.base import Source
from sources.registry import SOURCES
from tests.architecture.test_layers import ROOT
from tests.sources.test_registry import built_in_sources

DOCS = ROOT / "docs"


def section(doc: str, title: str) -> str:
    """The text of one ``## title`` section."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    following = text.find("\n## ", start + 1)
    return text[start : following if following != -1 else len(text)]


def unknown_language_names() -> set[str]:
    """Every name a test expects to be refused as no language ("unknown language 'cobol'")."""
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        found |= {name.lower() for name in re.findall(r"unknown language '([^']+)'", path.read_text())}
    return found


def test_the_language_how_to_adds_a_language_no_test_calls_unknown() -> None:
    examples = set(re.findall(r'Language\("([^"]+)"\)', section("sandboxes.md", "Adding a language")))
    assert examples == {"kotlin"}
    assert "cobol" in unknown_language_names()  # the scan finds what the tests refuse
    assert not examples & unknown_language_names()


def python_block(text: str, first_line: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    return next(block for block in blocks if block.startswith(first_line))


def test_the_source_how_to_reads_its_checkout_and_is_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    how_to = section("sources.md", "Adding a source")
    module_file = tmp_path / "humaneval_x.py"
    module_file.write_text(python_block(how_to, "# sources/humaneval_x.py"))
    loaded = importlib.util.spec_from_file_location("humaneval_x", module_file)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    source: Source = module.SOURCE
    checkout = tmp_path / "checkout" / "data" / "python"
    checkout.mkdir(parents=True)
    (checkout / "humaneval.jsonl").write_text(json.dumps({"task_id": "Python/0", "prompt": "def f(): ..."}))
    (item,) = list(source.read(tmp_path / "checkout", "c0ffee"))
    assert isinstance(item, SourceItem) and item.key == "Python/0" and item.language == "python"
    assert "humaneval_x.SOURCE," in python_block(how_to, "# sources/registry.py")
    SOURCES.load()
    monkeypatch.setitem(SOURCES, source.name, source)
    assert source.name in built_in_sources()  # registered in sources/registry.py, it is ours: documented
    assert f"`{source.name}`" in (DOCS / "sources.md").read_text()


def test_the_subset_how_to_names_the_build_hooks_as_they_are_called() -> None:
    how_to = section("build.md", "Adding a subset (example: pyver)")
    planner = "plan_items(spec, config, start, count)"
    step = "build_batch(spec, store, config, items)"
    assert planner in how_to and step in how_to
    assert list(inspect.signature(pyver.build_batch).parameters) == ["spec", "store", "config", "items"]
    plan = pyver.SPEC.plan_items
    assert plan is not None
    assert list(inspect.signature(plan).parameters) == ["spec", "config", "start", "count"]
    assert "inside the function" not in how_to  # build modules are imported at the top, like any import
