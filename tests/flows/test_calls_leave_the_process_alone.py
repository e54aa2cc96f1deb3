"""A call leaves its process alone: Prefect's settings are Prefect's own settings context for the call's
duration, never ``os.environ``; calls from threads of one notebook, and calls inside a flow of the user's
own, give the summaries one at a time gives, and the user's flow keeps its own settings."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.engine import Engine, engine_here
from flows.settings import choose_settings

REPOSITORY = Path(__file__).resolve().parents[2]
NOTEBOOK = Path(__file__).with_name("notebook_session.py")
FLOW_CALLS = ("build", "audit", "run")


def clean_environment(tmp_path: Path) -> dict[str, str]:
    """A user's environment: no Prefect setting, surge's per-user state under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return {**env, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONPATH": str(REPOSITORY)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def users_api(tmp_path: Path) -> Iterator[str]:
    """The user's own Prefect API, in a Prefect home of theirs."""
    port = free_port()
    env = {**clean_environment(tmp_path), "PREFECT_HOME": str(tmp_path / "users-prefect")}
    command = [sys.executable, "-P", "-m", "flows.api_server", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_for_health(url, server)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def wait_for_health(url: str, server: subprocess.Popen[bytes], timeout_s: float = 300) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"the user's Prefect API did not start (exit {server.poll()})")


@pytest.mark.slow
def test_calls_from_threads_and_inside_the_users_flow_match_one_at_a_time(
    tmp_path: Path, users_api: str, require_bwrap: None
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, str(NOTEBOOK), str(work), users_api],
        env=clean_environment(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["writes"] == [] and report["environment_kept"]

    alone, threads, flow = report["one_at_a_time"], report["all_at_once"], report["in_the_users_flow"]
    for name, called in alone.items():
        assert called["ok"], (name, called["summary"]["failures"])
        assert threads[name]["summary"] == called["summary"], name
        assert flow["summaries"][name] == called, name
    # the three calls that run flows ran at the same time, each with an engine of its own
    started, ended = zip(*(threads[name]["ran"] for name in FLOW_CALLS), strict=True)
    assert max(started) < min(ended)
    assert alone["run"]["summary"]["programs"] == 5 and alone["build"]["summary"]["built"]["sc"]
    assert alone["export"]["summary"]["rows"] == {"sc": 2} and alone["audit"]["summary"]["labels"] == 2

    # the user's flow saw its own settings before, during (from a task of its own) and after the calls
    own = [users_api, str(Path.home() / ".prefect"), "INFO"]
    assert flow["before"] == flow["after"] == flow["users_settings"] == own
    assert flow["during"] == [own]
    # and surge's flows ran on the user's server, as runs inside the user's flow
    assert {"run 5 programs × default", "build sc n=2 seed=0", "audit sc × default"} < set(flow["flow_runs"])


def test_engines_in_two_threads_each_see_their_own_settings(tmp_path: Path) -> None:
    """Two engines open at once in two threads, each under settings of its thread's own: each thread sees
    its own and surge's, and the environment is the same before, during and after."""
    from prefect.settings import PREFECT_LOGGING_LEVEL, get_current_settings, temporary_settings

    environment = dict(os.environ)
    both_inside = threading.Barrier(2, timeout=60)
    seen: dict[str, Any] = {}

    def open_engine(level: str) -> None:
        with (
            temporary_settings({PREFECT_LOGGING_LEVEL: level}),
            Engine(state_dir=tmp_path / level) as engine,
            engine.settings_in_force(),
        ):
            both_inside.wait()  # the other thread's engine is open now too
            settings = get_current_settings()
            seen[level] = [
                engine_here() is engine,
                settings.logging.level,
                settings.logging.to_api.when_missing_flow,
            ]
            seen[f"{level} environment kept"] = dict(os.environ) == environment
            both_inside.wait()

    threads = [threading.Thread(target=open_engine, args=(level,)) for level in ("DEBUG", "ERROR")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {
        "DEBUG": [True, "DEBUG", "ignore"],
        "DEBUG environment kept": True,
        "ERROR": [True, "ERROR", "ignore"],
        "ERROR environment kept": True,
    }
    assert get_current_settings().logging.to_api.when_missing_flow == "warn"  # Prefect's own, here
    assert dict(os.environ) == environment


def test_the_users_settings_win_and_surges_fill_the_rest(tmp_path: Path) -> None:
    """Inside the user's own settings context (a flow of theirs under ``temporary_settings``), an engine
    keeps what they set and adds surge's defaults for the rest; after, the user's settings are back."""
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_LOGGING_LEVEL,
        get_current_settings,
        temporary_settings,
    )

    with temporary_settings({PREFECT_API_URL: "http://127.0.0.1:9/api", PREFECT_LOGGING_LEVEL: "DEBUG"}):
        chosen = choose_settings(tmp_path)
        assert chosen.api_url == "http://127.0.0.1:9/api"
        assert (
            chosen.in_force["PREFECT_LOGGING_LEVEL"] == "DEBUG"
            and "PREFECT_LOGGING_LEVEL" not in chosen.chosen
        )
        assert chosen.in_force["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
        assert chosen.updates()["PREFECT_FLOWS_HEARTBEAT_FREQUENCY"] is None  # the user set no heartbeat
        with Engine(state_dir=tmp_path) as engine, engine.settings_in_force():
            inside = get_current_settings()
            assert (inside.api.url, inside.logging.level) == ("http://127.0.0.1:9/api", "DEBUG")
            assert (inside.server.analytics_enabled, inside.logging.to_api.when_missing_flow) == (
                False,
                "ignore",
            )
        after = get_current_settings()
        assert (after.api.url, after.logging.level) == ("http://127.0.0.1:9/api", "DEBUG")
        assert (after.server.analytics_enabled, after.logging.to_api.when_missing_flow) == (True, "warn")


def test_without_prefect_the_environment_and_the_profile_say(tmp_path: Path) -> None:
    """Before Prefect is imported nobody can have entered a settings context: the environment and the
    active profile are the user's settings (the environment wins), read without importing Prefect."""
    profiles = tmp_path / "profiles.toml"
    profiles.write_text(
        'active = "lab"\n[profiles.lab]\nPREFECT_API_URL = "http://lab:4200/api"\n'
        'PREFECT_LOGGING_LEVEL = "ERROR"\nPREFECT_RESULTS_PERSIST_BY_DEFAULT = "true"\n'
    )
    probe = (
        "import json, sys\n"
        "from flows.settings import choose_settings\n"
        "chosen = choose_settings()\n"
        "seen = [chosen.api_url, chosen.in_force, sorted(chosen.chosen), 'prefect' in sys.modules]\n"
        "print(json.dumps(seen))\n"
    )
    env = {
        **clean_environment(tmp_path),
        "PREFECT_PROFILES_PATH": str(profiles),
        "PREFECT_LOGGING_LEVEL": "CRITICAL",
    }
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    api_url, in_force, chosen, prefect_imported = json.loads(done.stdout)
    assert api_url == "http://lab:4200/api" and not prefect_imported
    assert in_force["PREFECT_LOGGING_LEVEL"] == "CRITICAL"  # the environment over the profile
    assert in_force["PREFECT_RESULTS_PERSIST_BY_DEFAULT"] == "true"  # the profile over surge
    assert in_force["PREFECT_HOME"] == str(tmp_path / "state" / "surge" / "prefect")
    assert in_force["PREFECT_PROFILES_PATH"] == str(profiles)
    assert "PREFECT_HOME" in chosen and "PREFECT_LOGGING_LEVEL" not in chosen


EPHEMERAL_USER = """
import json, sys
import surge
from prefect import flow
from prefect.settings import get_current_settings

@flow
def users_own_flow():
    before = get_current_settings().api.url
    ran = surge.run(programs=sys.argv[1], store=sys.argv[2], cpu_s=2, wall_s=4)
    return [before, ran.ok, ran.written, get_current_settings().api.url]

print(json.dumps(users_own_flow()))
"""


@pytest.mark.slow
def test_a_call_inside_the_users_flow_on_prefects_own_ephemeral_server_runs_there(
    tmp_path: Path, require_bwrap: None
) -> None:
    """The user names no server: their flow runs on the server Prefect starts in their process, and a
    call inside it runs its flows there too, as subflows (on a server of surge's own, creating them was
    refused: their parent was unknown there)."""
    programs = tmp_path / "programs.jsonl"
    programs.write_text(json.dumps({"language": "python", "source": "print(1)"}) + "\n")
    (tmp_path / "home").mkdir()
    env = {
        **clean_environment(tmp_path),
        "HOME": str(tmp_path / "home"),  # a user new to Prefect: no profile, Prefect's own home
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300",  # this machine's load, not the user's
    }
    done = subprocess.run(
        [sys.executable, "-c", EPHEMERAL_USER, str(programs), str(tmp_path / "store")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [None, True, 1, None]
