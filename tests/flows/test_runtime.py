"""flows/runtime.py pieces that need no Prefect server: the collector pause around heavy imports."""

from __future__ import annotations

import gc
import urllib.request
from pathlib import Path

import pytest

from flows.runtime import LocalApi, collector_paused, configure_prefect


def test_the_collector_is_off_inside_and_what_was_built_is_frozen_after() -> None:
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        with collector_paused():
            assert not gc.isenabled()
            built = [[n] for n in range(1000)]  # what an import leaves behind
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + len(built)
    finally:
        gc.unfreeze()  # the rest of the test session collects as usual


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_collector_comes_back_when_the_import_fails() -> None:
    try:
        with collector_paused():
            raise ImportError("a broken install")
    except ImportError:
        pass
    assert gc.isenabled()
    gc.unfreeze()


@pytest.mark.slow
def test_the_local_api_starts_from_a_folder_with_a_flows_package_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's project often has a `flows/` folder: it must not shadow ours in the API server."""
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "__init__.py").write_text("raise ImportError('the user project, not surge')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    configure_prefect()  # creates the home
    api = LocalApi()
    try:
        api.wait_ready(120)
        with urllib.request.urlopen(f"{api.url}/health", timeout=10) as response:
            assert response.status == 200
    finally:
        api.stop()


def test_importing_the_flows_configures_nothing_until_an_engine_opens(tmp_path: Path) -> None:
    """Flows import Prefect like Prefect's own examples: no setting written, nothing frozen, no server,
    until a command opens its engine (flows/engine.py); then Prefect's settings are in place."""
    import json
    import os
    import subprocess
    import sys

    probe = (
        "import gc, json, os\n"
        "import flows.run_programs, flows.build_subset, flows.pull_sources, flows.refactor_items\n"
        "before = {k: v for k, v in os.environ.items() if k.startswith('PREFECT_')}\n"
        "frozen = gc.get_freeze_count()\n"
        "from flows.engine import Engine, engine_here\n"
        "with Engine() as engine:\n"
        "    inside = (engine_here() is engine, os.environ.get('PREFECT_LOGGING_LEVEL'), engine.api)\n"
        "after = {k: v for k, v in os.environ.items() if k.startswith('PREFECT_')}\n"
        "print(json.dumps([before, frozen, inside[0], inside[1], inside[2], engine_here(), after]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PREFECT_PROFILES_PATH"] = str(tmp_path / "no-profiles.toml")  # no user profile either
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # Prefect's per-user home, made as the engine opens
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path,
        check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    before, frozen, current, level, api, left, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert before == {"PREFECT_PROFILES_PATH": str(tmp_path / "no-profiles.toml")} and frozen == 0
    assert current is True and level == "WARNING"  # configured as the engine opened, and reachable
    assert api is None and left is None  # no API until a flow needs one; none left open after
    assert after == before  # the caller's environment as it was once the engine closed
