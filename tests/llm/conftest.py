"""The real model server for the tests of this folder (`make test-llm`), started once and stopped after.

Every test here is marked ``llm``: `make test` leaves them out (`-m "not llm"`), since the server must be
built first (`make llm`, 10-30 minutes once). Where it is not built, they skip naming what is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm.local_server import MODEL, LocalModelServer, missing


@pytest.fixture(scope="session")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalModelServer]:
    if reason := missing():
        pytest.skip(reason)
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    with LocalModelServer(log) as server:
        yield server


@pytest.fixture
def clean_llm_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No SURGE_LLM_* of the caller's; the test's folder as the working directory (so the response cache,
    stores and Prefect's home land there). Returns that folder."""
    for name in list(os.environ):
        if name.startswith("SURGE_LLM_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def real_endpoint(
    real_server: LocalModelServer, clean_llm_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """SURGE_LLM_BASE_URL and SURGE_LLM_MODEL pointing at the real server, in a clean environment."""
    if not real_server.alive:
        pytest.fail(f"the real model server died; its log: {real_server.log}")
    monkeypatch.setenv("SURGE_LLM_BASE_URL", real_server.base_url)
    monkeypatch.setenv("SURGE_LLM_MODEL", MODEL)
    return clean_llm_environment
