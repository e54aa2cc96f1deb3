"""The release's layout as the reader knows it without the registry agrees with the subset specs."""

from __future__ import annotations

from pathlib import Path

from pipeline.subsets import RELEASED, load_release, release_catalog
from sources.surge_release import SURGE_SUBSETS
from sources.surge_release import load_release as read_surge_release


def test_surge_s_eight_are_numbered_as_their_specs_say() -> None:
    assert dict(SURGE_SUBSETS) == {name: release_catalog()[name] for name in RELEASED}


def test_the_registry_s_reader_and_the_bare_reader_agree_on_surge_s_files(samples: Path) -> None:
    release = samples / "surge-released"
    assert load_release(release) == read_surge_release(release)
