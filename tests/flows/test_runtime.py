"""flows/runtime.py pieces that need no Prefect server: the collector pause around heavy imports."""

from __future__ import annotations

import gc
import urllib.request
from pathlib import Path

import pytest

from flows.collector import collector_paused
from flows.runtime import LocalApi, make_home
from flows.settings import choose_settings


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
    settings = choose_settings()
    make_home(settings.home)
    api = LocalApi(settings)
    try:
        api.wait_ready(120)
        with urllib.request.urlopen(f"{api.url}/health", timeout=10) as response:
            assert response.status == 200
    finally:
        api.stop()


def test_importing_the_flows_configures_nothing_and_an_engine_writes_no_environment(tmp_path: Path) -> None:
    """Flows import Prefect like Prefect's own examples: no setting written, nothing frozen, no server,
    until a command opens its engine (flows/engine.py); then Prefect's settings are the engine's, as
    Prefect's settings context, and the environment is the same before, inside and after."""
    import json
    import os
    import subprocess
    import sys

    probe = (
        "import gc, json, os\n"
        "import flows.run_programs, flows.build_subset, flows.pull_sources, flows.refactor_items\n"
        "from prefect.settings import get_current_settings\n"
        "environ, frozen = dict(os.environ), gc.get_freeze_count()\n"
        "from flows.engine import Engine, engine_here\n"
        "with Engine() as engine, engine.settings_in_force():\n"
        "    inside = [engine_here() is engine, get_current_settings().logging.level, engine.api is None,\n"
        "              str(get_current_settings().home), dict(os.environ) == environ]\n"
        "after = [engine_here(), get_current_settings().logging.level, dict(os.environ) == environ]\n"
        "print(json.dumps([frozen, inside, after]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PREFECT_PROFILES_PATH"] = str(tmp_path / "no-profiles.toml")  # no user profile either
    env["XDG_STATE_HOME"] = str(tmp_path / "state")  # Prefect's per-user home, made as the engine opens
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path,
        check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, inside, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert frozen == 0
    # the engine's settings, reachable; no API until a flow needs one; the environment never written
    assert inside == [True, "WARNING", True, str(tmp_path / "state" / "surge" / "prefect"), True]
    assert after == [None, "INFO", True]  # Prefect's own defaults again once the engine closed
