"""dr: 40 settings, stability and differential filters, dependencies; the real matrix under g++/clang++."""

from __future__ import annotations

import pytest

from pipeline.build import dr
from pipeline.build.plan import snippet_item
from pipeline.build.records import BuildConfig
from pipeline.store import Store
from pipeline.subsets import subset_spec
from pipeline.templates import library_snippets
from tests.build.test_snippets import CONTROLS
from tests.conftest import require_tool


def test_forty_settings_keyed_like_surge() -> None:
    assert len(dr.KEYS) == 40 == len(set(dr.KEYS))
    assert "clang++-C++11--O1" in dr.KEYS
    assert set(dr.PROBE_KEYS) <= set(dr.KEYS)


def test_dependencies_name_the_dimension_that_changes_the_label() -> None:
    only_standard = {key: key.split("C++")[1][:2] for key in dr.KEYS}
    assert dr.dependencies(only_standard) == [False, True, False]
    only_clang_o0 = {key: "x" if key.startswith("clang") and key.endswith("O0") else "y" for key in dr.KEYS}
    assert dr.dependencies(only_clang_o0) == [True, False, True]
    assert dr.dependencies(dict.fromkeys(dr.KEYS, "same")) == [False, False, False]


def _item_for(template: str, config: BuildConfig):
    templates = library_snippets() + library_snippets(CONTROLS)
    index = next(i for i, t in enumerate(templates) if t.name == template)
    return snippet_item(config, templates, index)


@pytest.mark.slow
def test_matrix_keeps_a_differential_snippet_and_drops_a_constant_one(tmp_path, require_bwrap, monkeypatch):
    require_tool("g++", "clang++-19")
    monkeypatch.setenv("SURGE_COMPILE_CACHE", str(tmp_path / "cache"))
    config = BuildConfig(subset="dr", seed=0)
    items = [_item_for("cplusplus_macro", config), _item_for("plain_sum", config)]
    outcomes, rows, ours = dr.build_snippets(subset_spec("dr"), Store(tmp_path / "store"), config, items)
    assert ours == []
    kept, dropped = outcomes
    assert (kept.status, dropped.status) == ("kept", "dropped")
    assert dropped.reason == "same output under all 40 settings"
    # four labels (one per standard), of which the seeded draw keeps two, each keyed by its first setting
    keys = [row.custom_features["key"] for row in rows]
    assert len(keys) == dr.ROWS_PER_PROGRAM
    assert set(keys) <= {f"g++-C++{s}--O0" for s in ("03", "11", "14", "17")}
    assert all(row.custom_features["dependencies"] == [False, True, False] for row in rows)
    assert len({row.gt for row in rows}) == 2
