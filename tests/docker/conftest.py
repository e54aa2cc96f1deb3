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

import pytest

from tests.conftest import REPO_ROOT

MINIMAL_IMAGES = ("surge/cpp:bookworm", "surge/python:bookworm")
BUILD_TIMEOUT_S = 1800
DEBIAN_MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")


def engine_running() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0


def image_present(tag: str) -> bool:
    probe = subprocess.run(["docker", "image", "inspect", tag], capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.fixture(scope="session")
def surge_images() -> Iterator[None]:
    """The minimal images, built (incrementally) when missing."""
    if not engine_running():
        pytest.skip("needs a running Docker engine (`docker info` failed)")
    if not all(image_present(tag) for tag in MINIMAL_IMAGES):
        missing = build_prerequisite_missing()
        if missing:
            pytest.skip(f"the Docker images are not built and cannot be here ({missing}): run `make images`")
        build = subprocess.run(
            ["bash", str(REPO_ROOT / "dockerfiles" / "build.sh"), "--minimal", "bookworm"],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
        )
        assert build.returncode == 0, (
            f"dockerfiles/build.sh --minimal failed:\n{build.stdout}\n{build.stderr}"
        )
    yield


def build_prerequisite_missing() -> str:
    """Why build.sh cannot run here (environment, not our bug), or '' when it can."""
    if os.geteuid() != 0:
        return "debootstrap needs root"
    if shutil.which("debootstrap") is None:
        return "needs `debootstrap`"
    try:
        urllib.request.urlopen(f"{DEBIAN_MIRROR}/dists/bookworm/Release", timeout=10).close()
    except OSError as error:
        return f"Debian's archive is unreachable: {error}"
    return ""


@pytest.fixture(scope="module")
def docker_backend(surge_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(workers=1, cache_dir=tmp_path_factory.mktemp("compile-cache")) as backend:
        yield backend
