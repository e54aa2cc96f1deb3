"""The registry: every source is pinned to the commit its sample README names, and documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("name", sorted(SAMPLE_FOLDERS))
def test_pinned_commit_is_the_one_surge_traces_back_to(name: str, samples: Path) -> None:
    assert SOURCES[name].samples.split("/")[0] in ("", SAMPLE_FOLDERS[name])  # the spec names its sample
    readme = (samples / SAMPLE_FOLDERS[name] / "README.txt").read_text()
    source = SOURCES[name]
    assert source.commit is not None
    assert re.search(rf"\b(commit|main,) {source.commit}\b", readme), f"{name}: {source.commit} not in README"
    assert "/".join(source.upstream_repo.split("/")[-2:]).lower() in readme.lower()


def test_every_source_is_complete_and_documented() -> None:
    docs = (REPO_ROOT / "docs" / "sources.md").read_text()
    for name, source in SOURCES.items():
        assert source.name == name and source.licence and source.paths and source.kind in {"git", "hf"}
        assert f"`{name}`" in docs, f"docs/sources.md does not describe {name}"
