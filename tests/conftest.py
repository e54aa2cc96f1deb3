"""Shared fixtures. Tests that need a tool the machine lacks skip with a reason naming the tool."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sources import SAMPLES as BUNDLED_SAMPLES

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES = BUNDLED_SAMPLES  # inside the repository (sources/samples/, each with its README)


def require_tool(*names: str) -> None:
    """Skip the calling test unless every named executable is on PATH."""
    for name in names:
        if shutil.which(name) is None:
            pytest.skip(f"needs `{name}` (install with `make setup`)")


@pytest.fixture
def require_bwrap() -> None:
    require_tool("bwrap")


@pytest.fixture
def require_docker() -> None:
    require_tool("docker")
    probe = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip("needs a running Docker engine (`docker info` failed)")


@pytest.fixture(scope="session")
def samples() -> Path:
    assert SAMPLES.is_dir(), f"the bundled samples are missing: {SAMPLES}"
    return SAMPLES


@pytest.fixture(autouse=True, scope="session")
def _interrupts_reach_children() -> None:
    """Ctrl-C reaches the commands the tests start, however the suite itself was started. A shell starts a
    background job (``make test &``, nohup under a script) with SIGINT ignored, and an ignored signal
    stays ignored across exec: the interrupt tests then saw their commands finish with exit 0 instead of
    130. A handled signal is reset to its default at exec, so handling it here gives children the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def _prefect_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    # Keep Prefect's database out of the user's home and out of the repo during tests.
    os.environ.setdefault("PREFECT_HOME", str(tmp_path_factory.mktemp("prefect-home")))


@pytest.fixture(autouse=True, scope="session")
def _engine(_prefect_in_tmp: None) -> Iterator[None]:
    """One engine for the session, as the `surge` executable opens one per command: the flow commands the
    tests call with ``main`` share its Prefect API (started by the first flow) instead of one each."""
    from flows.engine import Engine

    with Engine():
        yield
