"""Docker tests run against the real engine and the real images, built here when missing.

The minimal set (surge/base + cpp + python for bookworm) is built by `dockerfiles/build.sh --minimal`
when absent (a few minutes, from Debian's archive); where that cannot work (no engine, not root, no
archive) the tests skip and name `make images`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

MINIMAL_IMAGES = ("surge/cpp:bookworm", "surge/python:bookworm")
REPRO_IMAGES = ("surge/cpp:bullseye", "surge/python:bullseye")
BUILD_TIMEOUT_S = 1800
DEBIAN_MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The first test to need the images may build them (minutes): pytest-timeout's 600 s covers setup too.
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.timeout(BUILD_TIMEOUT_S + 300))


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


def ensure_images(suite: str, tags: tuple[str, ...]) -> None:
    if not engine_running():
        pytest.skip("needs a running Docker engine (`docker info` failed)")
    if all(image_present(tag) for tag in tags):
        return
    missing = build_prerequisite_missing(suite)
    if missing:
        pytest.skip(f"the Docker images are not built and cannot be here ({missing}): run `make images`")
    for _attempt in range(2):  # the build downloads from Debian's archive: one retry for a network hiccup
        build = subprocess.run(
            ["bash", str(REPO_ROOT / "dockerfiles" / "build.sh"), "--minimal", suite],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
        if build.returncode == 0:
            return
    raise AssertionError(f"build.sh --minimal {suite} failed:\n{build.stdout}\n{build.stderr}")


def build_prerequisite_missing(suite: str) -> str:
    """Why build.sh cannot run here (environment, not our bug), or '' when it can."""
    if os.geteuid() != 0:
        return "debootstrap needs root"
    if shutil.which("debootstrap") is None:
        return "needs `debootstrap`"
    try:
        urllib.request.urlopen(f"{DEBIAN_MIRROR}/dists/{suite}/Release", timeout=10).close()
    except OSError as error:
        return f"Debian's archive is unreachable: {error}"
    return ""


@pytest.fixture(scope="module")
def docker_backend(surge_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(workers=1, cache_dir=tmp_path_factory.mktemp("compile-cache")) as backend:
        yield backend


def unbuilt_image_reason(image: str) -> str:
    """Why a test skips for an image that is not built, and how to get it."""
    if "/lean4:" in image:
        return f"image {image} is not built: Lean 4 comes from GitHub (elan): `make images` with GitHub"
    return f"image {image} is not built (`make images`)"
