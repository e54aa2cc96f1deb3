"""The per-language lists outside Python are the registry's.

`make setup`'s packages, `make images`' families and the pinned image packages; the stdlib reading of the
specs (manifest.py, for scripts that run before the virtualenv) agrees with the imported registry.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sandboxes.languages import REGISTRY, image_families, language_aliases, manifest, setup_packages

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "sandboxes" / "languages" / "manifest.py"
# Images pinned beside the languages' that are no language's: the cluster host (dockerfiles/dask).
HOST_FAMILIES = {"bookworm": {"dask"}, "bullseye": set(), "focal": set()}


def test_the_stdlib_reading_of_the_specs_matches_the_registry() -> None:
    modules = [importlib.import_module(f"sandboxes.languages.{m}") for m in manifest.registered_modules()]
    assert [module.SPEC.language for module in modules] == list(REGISTRY)
    assert manifest.setup_packages() == list(setup_packages())
    assert manifest.image_families() == list(image_families())


def test_the_manifest_runs_with_a_bare_python3_before_the_virtualenv_exists() -> None:
    python3 = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    # -I: no PYTHONPATH, no user site, so only the stdlib is importable (as in `make setup`).
    for listing, expected in (("packages", setup_packages()), ("families", image_families())):
        out = subprocess.run(
            [python3, "-I", str(MANIFEST), listing], capture_output=True, text=True, check=True, cwd="/"
        )
        assert out.stdout.split() == list(expected)
    usage = subprocess.run([python3, "-I", str(MANIFEST), "nonsense"], capture_output=True, text=True)
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_setup_and_build_scripts_read_the_manifest() -> None:
    setup = (ROOT / "scripts" / "setup-system.sh").read_text()
    build = (ROOT / "dockerfiles" / "build.sh").read_text()
    assert 'sandboxes/languages/manifest.py" packages' in setup
    assert '"${LANGUAGE_PACKAGES[@]}"' in setup
    assert 'sandboxes/languages/manifest.py" families' in build
    shared = ROOT / "dockerfiles" / "language" / "Dockerfile"  # a family without a recipe of its own
    assert shared.is_file() and "ARG FAMILY" in shared.read_text()
    for family in image_families():
        own = ROOT / "dockerfiles" / family / "Dockerfile"
        assert own.is_file() or not own.parent.exists(), f"{family}: a folder without a Dockerfile"


def pinned_names(suite: str) -> dict[str, set[str]]:
    """family -> package names pinned in dockerfiles/pins/<suite>.txt (versions and aliases dropped)."""
    found = {}
    for line in (ROOT / "dockerfiles" / "pins" / f"{suite}.txt").read_text().splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        family, rest = line.split(":", 1)
        found[family] = {word.split("=")[0] for word in rest.split("|")[0].split()}
    return found


@pytest.mark.parametrize("suite", ["bookworm", "bullseye", "focal"])
def test_the_pins_pin_exactly_the_specs_image_packages(suite: str) -> None:
    wanted: dict[str, set[str]] = {}
    for spec in REGISTRY.values():
        if suite in spec.image_packages:
            wanted.setdefault(spec.image_family, set()).update(spec.image_packages[suite])
    pinned = pinned_names(suite)
    assert set(pinned) - set(wanted) == HOST_FAMILIES[suite]
    assert {family: pinned.get(family) for family in wanted} == wanted


def test_languages_sharing_a_family_agree_on_its_suite() -> None:
    suites: dict[str, set[str | None]] = {}
    for spec in REGISTRY.values():
        suites.setdefault(spec.image_family, set()).add(spec.image_suite)
    assert all(len(found) == 1 for found in suites.values()), suites


def test_aliases_and_fence_tags_name_one_language_each() -> None:
    aliases = [a for spec in REGISTRY.values() for a in (spec.language.value, *spec.aliases)]
    assert len(aliases) == len(set(aliases)) == len(language_aliases())
    tags = [tag for spec in REGISTRY.values() for tag in spec.fence_tags]
    assert len(tags) == len(set(tags))
    assert all(a == a.lower() for a in aliases + tags)


def test_make_test_leaves_the_images_beyond_the_core_set_to_make_test_languages() -> None:
    from tests.docker.conftest import CORE_LANGUAGES, language_marks

    assert set(REGISTRY) >= CORE_LANGUAGES, sorted(CORE_LANGUAGES - set(REGISTRY))
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(marker.startswith("language_images:") for marker in pytest_options["markers"])
    makefile = (ROOT / "Makefile").read_text()
    assert '$(PY) -m pytest -q -m "not language_images" tests\n' in makefile
    assert "test-languages: setup\n\t$(PY) -m pytest -q -m language_images tests\n" in makefile
    beyond = [language for language in REGISTRY if language not in CORE_LANGUAGES]
    assert {"lua", "php", "perl", "r", "ruby", "racket", "bash"} <= set(beyond)
    assert all([mark.name for mark in language_marks(language)] == ["language_images"] for language in beyond)
    assert not any(language_marks(language) for language in CORE_LANGUAGES)
