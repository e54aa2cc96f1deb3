"""Docker tests run against the real engine and the real images, built here when missing.

Every image a test uses is built by `dockerfiles/build.sh` when absent (the base from Debian's archive
with debootstrap, then each family: under a minute each here, Julia's about 10 as it writes its own system
image, docs/docker.md), under a lock so two test processes never build one image twice; build.sh skips an
image whose inputs are unchanged, so a second run costs nothing. Where building cannot work (no engine, not
root, no archive; the Lean image needs GitHub) the tests skip and name what is missing.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.records import Language
from tests.conftest import REPO_ROOT

# The languages whose images `make test` builds and runs. Every other registered language's Docker tests are
# marked `language_images`: `make test` leaves them out (each image is another minute or more of building,
# and seven more pushed it past its 25-minute budget) and `make test-languages` runs them. Julia, though
# one of SURGE's languages, is among the others: its image writes its own system image (10-20 minutes on
# 2 cores), and a fresh machine's `make test` spent 1,254 of its 4,174 s in the julia self-test that built
# it (30%, the machine loaded). Every Julia run is in that image (the host has no Julia), so a fresh CI
# machine paid it every time.
CORE_LANGUAGES = frozenset({"c", "cpp", "csharp", "java", "rust", "python", "javascript", "lean4"})
MINIMAL_IMAGES = ("surge/cpp:bookworm", "surge/python:bookworm")
REPRO_IMAGES = ("surge/cpp:bullseye", "surge/python:bullseye")
FOCAL_IMAGES = ("surge/cpp:focal",)  # built from bullseye and surge/cpp:bookworm (dockerfiles/pins/focal.txt)
ARCHIVE_SUITES = {"focal": "bullseye"}  # an image suite that is no Debian suite -> the one it installs from
BUILD_TIMEOUT_S = 1800
DEBIAN_MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The first test to need the images may build them (minutes): pytest-timeout's 600 s covers setup too.
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT_S + 300))


def language_marks(language: str) -> tuple[pytest.MarkDecorator, ...]:
    """The marks of a Docker test of `language`: `language_images` where its image is beyond the core set."""
    return () if language in CORE_LANGUAGES else (pytest.mark.language_images,)


def by_language(languages: list[Language]) -> list[Any]:
    """Parameters for a test over `languages`, each marked as language_marks says."""
    return [pytest.param(lang, marks=language_marks(lang), id=lang.value) for lang in languages]


def engine_running() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


def image_present(tag: str) -> bool:
    probe = subprocess.run(["docker", "image", "inspect", tag], capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.fixture(scope="session")
def surge_images() -> Iterator[None]:
    """The minimal images of profile "current" (bookworm), built (incrementally) when missing."""
    ensure_images("bookworm", MINIMAL_IMAGES)
    yield


@pytest.fixture(scope="session")
def repro_images(surge_images: None) -> Iterator[None]:
    """The minimal images of profile "surge-repro" (bullseye)."""
    ensure_images("bullseye", REPRO_IMAGES)
    yield


@pytest.fixture(scope="session")
def focal_images(repro_images: None) -> Iterator[None]:
    """The C/C++ image of profile "surge-focal" (gcc 9, glibc 2.31, clang 19 beside them)."""
    ensure_images("bookworm", ("surge/cpp:bookworm",))  # clang 19 is copied from it
    ensure_images("focal", FOCAL_IMAGES)
    yield


def ensure_images(suite: str, tags: tuple[str, ...]) -> None:
    if not engine_running():
        pytest.skip("needs a running Docker engine (`docker info` failed)")
    if all(image_present(tag) for tag in tags):
        return
    missing = build_prerequisite_missing(suite)
    if missing:
        pytest.skip(f"the Docker images are not built and cannot be here ({missing}): run `make images`")
    build_images(suite, [tag.removeprefix("surge/").split(":")[0] for tag in tags])


def build_prerequisite_missing(suite: str) -> str:
    """Why build.sh cannot run here (environment, not our bug), or '' when it can."""
    if os.geteuid() != 0:
        return "debootstrap needs root"
    if shutil.which("debootstrap") is None:
        return "needs `debootstrap`"
    try:
        release = f"{DEBIAN_MIRROR}/dists/{ARCHIVE_SUITES.get(suite, suite)}/Release"
        urllib.request.urlopen(release, timeout=10).close()
    except OSError as error:
        return f"Debian's archive is unreachable: {error}"
    return ""


@pytest.fixture(scope="module")
def docker_backend(surge_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(workers=1, cache_dir=tmp_path_factory.mktemp("compile-cache")) as backend:
        yield backend


def ensure_image(image: str) -> None:
    """Build surge/<family>:<suite> now if it is absent, or skip naming what this machine lacks for it."""
    if not engine_running():
        pytest.skip("needs a running Docker engine (`docker info` failed)")
    if image_present(image):
        return
    family, suite = image.removeprefix("surge/").split(":")
    if family == "lean4":
        pytest.skip(f"image {image} is not built: Lean 4 and Mathlib come from GitHub (elan, lake), "
                    "which this machine cannot reach: `make images` where GitHub is reachable")  # fmt: skip
    missing = build_prerequisite_missing(suite)
    if missing:
        pytest.skip(f"image {image} is not built and cannot be here ({missing}): run `make images`")
    lock_path = REPO_ROOT / ".surge" / "image-build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be building the same image
        if image_present(image):
            return
        build_images(suite, [family])


def build_images(suite: str, families: list[str]) -> None:
    for _attempt in range(2):  # the build downloads from Debian's archive: one retry for a network hiccup
        build = subprocess.run(
            ["bash", str(REPO_ROOT / "dockerfiles" / "build.sh"), "--suites", suite, *families],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
        if build.returncode == 0:
            return
    raise AssertionError(f"build.sh --suites {suite} {families} failed:\n{build.stdout}\n{build.stderr}")
