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
HOST_FAMILIES = {"bookworm": {"dask"}}
# Every suite with a pins file (bookworm, bullseye, focal, trixie): a new one is checked without an edit here.
PINNED_SUITES = sorted(path.stem for path in (ROOT / "dockerfiles" / "pins").glob("*.txt"))


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
        folder = ROOT / "dockerfiles" / family  # a recipe of its own, or a suite's (cpp's focal), or none
        assert not folder.exists() or any(folder.glob("Dockerfile*")), f"{family}: a folder without a recipe"


def test_the_shared_recipe_checks_each_familys_tools() -> None:
    """The tools an image must hold are every spec's compiler and runtime of that family, as imported."""
    python3 = shutil.which("python3") or sys.executable
    for family in image_families():
        listed = subprocess.run(
            [python3, "-I", str(MANIFEST), "tools", family], capture_output=True, text=True, check=True
        ).stdout.split()
        specs = [spec for spec in REGISTRY.values() if spec.image_family == family]
        assert listed == list(dict.fromkeys(t for s in specs for t in (s.default_tool, s.run_tool) if t))
    assert "TOOLS" in (ROOT / "dockerfiles" / "language" / "Dockerfile").read_text()


def pinned_names(suite: str) -> dict[str, set[str]]:
    """family -> package names pinned in dockerfiles/pins/<suite>.txt (versions and aliases dropped)."""
    found = {}
    for line in (ROOT / "dockerfiles" / "pins" / f"{suite}.txt").read_text().splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        family, rest = line.split(":", 1)
        found[family] = {word.split("=")[0] for word in rest.split("|")[0].split()}
    return found


@pytest.mark.parametrize("suite", PINNED_SUITES)
def test_the_pins_pin_exactly_the_specs_image_packages(suite: str) -> None:
    wanted: dict[str, set[str]] = {}
    for spec in REGISTRY.values():
        if suite in spec.image_packages:
            wanted.setdefault(spec.image_family, set()).update(spec.image_packages[suite])
    pinned = pinned_names(suite)
    assert set(pinned) - set(wanted) == HOST_FAMILIES.get(suite, set())
    assert {family: pinned.get(family) for family in wanted} == wanted


def test_every_suite_a_spec_names_has_pins_and_the_build_builds_it() -> None:
    named = {suite for spec in REGISTRY.values() for suite in spec.image_packages}
    named |= {spec.image_suite for spec in REGISTRY.values() if spec.image_suite}
    assert named <= set(PINNED_SUITES), named - set(PINNED_SUITES)
    build = (ROOT / "dockerfiles" / "build.sh").read_text()
    default_suites = build.split("\nsuites=(", 1)[1].split(")", 1)[0].split()
    assert named <= set(default_suites), (
        f"`make images` builds {default_suites}, not {named - set(default_suites)}"
    )


def test_every_docker_profile_finds_each_languages_image_among_the_pinned_ones() -> None:
    """An image no pins line names is never built: the language would be `toolchain_missing` for good."""
    from sandboxes.backends.docker import image_for
    from sandboxes.profiles import PROFILES

    for profile in (profile for profile in PROFILES.values() if profile.image):
        for language in REGISTRY:
            family, suite = image_for(language, profile).removeprefix("surge/").split(":")
            assert family in pinned_names(suite), f"{language} under {profile.name}: surge/{family}:{suite}"


def test_languages_sharing_a_family_agree_on_its_suite() -> None:
    suites: dict[str, set[str | None]] = {}
    for spec in REGISTRY.values():
        suites.setdefault(spec.image_family, set()).add(spec.image_suite)
    assert all(len(found) == 1 for found in suites.values()), suites


def test_aliases_and_fence_tags_name_one_language_each() -> None:
    spellings = [(spec.language.value, *spec.aliases, *spec.standard_spellings) for spec in REGISTRY.values()]
    aliases = [alias for spelled in spellings for alias in spelled]
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
    test_target = makefile.split("\ntest: setup\n", 1)[1].split("\n\n", 1)[0]
    assert test_target.startswith("\t$(PY) -m pytest -q ")
    assert test_target.endswith(' -m "not language_images and not llm" tests')
    assert "test-languages: setup\n\t$(PY) -m pytest -q -m language_images tests\n" in makefile
    beyond = [language for language in REGISTRY if language not in CORE_LANGUAGES]
    assert {"lua", "php", "perl", "r", "ruby", "racket", "bash"} <= set(beyond)
    assert all([mark.name for mark in language_marks(language)] == ["language_images"] for language in beyond)
    assert not any(language_marks(language) for language in CORE_LANGUAGES)
