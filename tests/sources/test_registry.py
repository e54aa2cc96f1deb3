"""The registry: every source is pinned to the commit its sample README names, and documented."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pipeline.plugins import BUILT_IN, Installed
from sources.registry import SOURCES

SAMPLE_FOLDERS = {
    "mceval": "mceval",
    "debugbench": "debugbench",
    "leetcode": "azl397985856-leetcode",
    "ojcode": "ojcode",
    "goedel_prover": "goedel-prover",
    "surge_release": "surge-released",
    "lean_workbook": "lean-workbook",
}
REPO_ROOT = Path(__file__).resolve().parents[2]
PLUGIN_ORIGIN = Installed("surge.sources", "someone_elses", "someone-elses-plugins 1.0")


@pytest.mark.parametrize("name", sorted(SAMPLE_FOLDERS))
def test_pinned_commit_is_the_one_surge_traces_back_to(name: str, samples: Path) -> None:
    assert SOURCES[name].samples.split("/")[0] in ("", SAMPLE_FOLDERS[name])  # the spec names its sample
    readme = (samples / SAMPLE_FOLDERS[name] / "README.txt").read_text()
    source = SOURCES[name]
    assert source.commit is not None
    assert re.search(rf"\b(commit|main,) {source.commit}\b", readme), f"{name}: {source.commit} not in README"
    assert "/".join(source.upstream_repo.split("/")[-2:]).lower() in readme.lower()


def built_in_sources() -> list[str]:
    """Our own registrations: a user's installed plug-in (examples/surge-cruxeval) is documented by its
    own package, not by docs/sources.md."""
    return [found.name for found in SOURCES.installed() if found.origin == BUILT_IN]


def test_every_source_is_complete_and_documented() -> None:
    docs = (REPO_ROOT / "docs" / "sources.md").read_text()
    for name, source in SOURCES.items():
        assert source.name == name and source.licence and source.paths and source.kind in {"git", "hf"}
    for name in built_in_sources():
        assert f"`{name}`" in docs, f"docs/sources.md does not describe {name}"


def test_a_plug_in_s_source_is_not_ours_to_document(monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = dataclasses.replace(SOURCES["mceval"], name="someone_elses")
    SOURCES.load()  # the installed plug-ins first, as a lookup would: then ours is one more
    monkeypatch.setattr(SOURCES, "origins", {**SOURCES.origins, "someone_elses": PLUGIN_ORIGIN})
    monkeypatch.setitem(SOURCES, "someone_elses", plugin)
    assert "someone_elses" in SOURCES and "someone_elses" not in built_in_sources()
    assert "mceval" in built_in_sources()
