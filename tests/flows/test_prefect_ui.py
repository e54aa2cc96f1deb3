"""What a person sees in Prefect's UI: against a real `prefect server start` on loopback, named by the
user's own Prefect profile, the commands' flow runs carry names that say what ran, typed parameters, tags,
a summary log line and artifacts, and a failure of ours is a Failed state."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flows.naming import JobLabel
from pipeline.records import EnvironmentProfile, Language, Program, RunRequest

SERVER_START_TIMEOUT_S = 180.0
REPOSITORY = Path(__file__).resolve().parents[2]
# git reads this from the environment: every https:// remote goes to a closed loopback port, so a pull is
# offline whatever the machine's network (nothing else of the command is redirected, unlike a proxy).
OFFLINE_GIT = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "url.http://127.0.0.1:9/.insteadOf",
    "GIT_CONFIG_VALUE_0": "https://",
}


def request(subset: str, profile: str, source: str = "print(1)") -> RunRequest:
    program = Program.single(Language.PYTHON, source, origin={"subset": subset})
    return RunRequest(program=program, profile=EnvironmentProfile(name=profile))


def test_a_job_is_named_by_its_subsets_and_profiles_and_tagged_with_them() -> None:
    profiles = ["default", "a", "b", "c", "d"]
    requests = [request(s, p, f"print({i})") for i, s in enumerate(["dr", "tc"]) for p in profiles]
    label = JobLabel.of("surge-audit", requests)
    assert label.flow_run_name() == "audit dr,tc × 5 profiles"
    assert label.batch_what() == "dr,tc"
    assert {"audit", "subset:dr", "subset:tc", "profile:default"} <= set(label.tags())
    assert (label.programs, label.runs) == (2, 10)


def user_home_with_profile(home: Path, api_url: str) -> Path:
    """A user's ~/.prefect/profiles.toml whose active profile names a server."""
    (home / ".prefect").mkdir(parents=True, exist_ok=True)
    profiles = home / ".prefect" / "profiles.toml"
    profiles.write_text(f'active = "lab"\n\n[profiles.lab]\nPREFECT_API_URL = "{api_url}"\n')
    return home


def user_env(home: Path) -> dict[str, str]:
    """The environment of a user who set nothing for Prefect but has a profile in their home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_") and k != "XDG_STATE_HOME"}
    return {**env, "HOME": str(home)}


def test_the_users_profile_names_the_api_although_prefect_home_moves(tmp_path: Path) -> None:
    home = user_home_with_profile(tmp_path / "home", "http://127.0.0.1:4999/api")
    show = "from flows.runtime import configure_prefect; import os; configure_prefect(); "
    show += "print(os.environ.get('PREFECT_API_URL'), os.environ['PREFECT_HOME'])"
    done = subprocess.run(
        [sys.executable, "-c", show], env={**user_env(home), "PYTHONPATH": str(REPOSITORY)},
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )  # fmt: skip
    api_url, prefect_home = done.stdout.split()
    assert api_url == "http://127.0.0.1:4999/api"
    assert prefect_home == str(home / ".local" / "state" / "surge" / "prefect")  # the per-user default


def test_a_server_named_by_prefect_api_url_that_does_not_answer_is_one_line_with_the_fix(
    tmp_path: Path,
) -> None:
    (tmp_path / "p.jsonl").write_text('{"language": "python", "source": "print(1)"}\n')
    env = {**user_env(tmp_path), "PREFECT_API_URL": f"http://127.0.0.1:{free_port()}/api"}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "run", "p.jsonl", "--store", "st"],
        env=env, cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # ours, during work: not 70, an internal error
    assert "does not answer" in done.stderr and "prefect server start" in done.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `prefect server start` on 127.0.0.1 and a free port, in a PREFECT_HOME of its own."""
    home = tmp_path_factory.mktemp("server-home")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
        "PREFECT_HOME": str(home),
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    prefect = Path(sys.executable).with_name("prefect")
    with (home / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"prefect server did not start: {(home / 'server.log').read_text()[-2000:]}")
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def surge(argv: list[str], home: Path, cwd: Path, extra: dict[str, str] | None = None) -> int:
    env = {**user_env(home), **(extra or {})}
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *argv], env=env, cwd=cwd, capture_output=True
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.returncode


def read_back(api_url: str, flow_run_name: str) -> dict[str, Any]:
    """Through Prefect's client: the flow run of this name, its task runs, logs and artifacts."""
    import asyncio

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterName,
        LogFilter,
        LogFilterFlowRunId,
    )
    from prefect.settings import PREFECT_API_URL, temporary_settings

    async def read() -> dict[str, Any]:
        async with get_client() as client:
            (run,) = await client.read_flow_runs(
                flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[flow_run_name]))
            )
            tasks = [t for t in await client.read_task_runs() if t.flow_run_id == run.id]
            logs = await client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id])))
            artifacts = await client.read_artifacts(
                artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id]))
            )
            return {"run": run, "tasks": tasks, "logs": logs, "artifacts": artifacts}

    with temporary_settings({PREFECT_API_URL: api_url}):
        return asyncio.run(read())


@pytest.mark.slow
def test_runs_builds_and_pulls_read_well_on_the_users_own_prefect_server(
    prefect_server: str, tmp_path: Path, require_bwrap: None
) -> None:
    home = user_home_with_profile(tmp_path / "home", prefect_server)
    lines = [json.dumps({"language": "python", "source": f"print({i})"}) for i in (1, 2)]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n")

    assert surge(["run", "p.jsonl", "--store", "st"], home, tmp_path) == 0
    seen = read_back(prefect_server, "run 2 programs × default")  # not a random name, on the user's server
    assert seen["run"].state.is_completed()
    assert {"run", "profile:default"} <= set(seen["run"].tags)
    assert seen["run"].parameters["job"]["programs"] == 2  # typed, readable parameters
    assert [t.name for t in seen["tasks"]] == ["batch 1/1 run"]
    assert any("2 runs" in log.message for log in seen["logs"])
    assert [a.key for a in seen["artifacts"] if a.type == "markdown"] == ["surge-run-summary"]
    assert len(json.dumps(seen["run"].parameters)) < 1024

    assert surge(["build", "sc", "--n", "2", "--store", "st"], home, tmp_path) == 0
    seen = read_back(prefect_server, "build sc n=2 seed=0")
    assert seen["run"].state.is_completed() and "config_json" not in seen["run"].parameters
    assert seen["run"].parameters["config"]["subset"] == "sc"
    assert {"build", "subset:sc", "profile:default"} <= set(seen["run"].tags)
    assert "build sc batch 0" in {t.name for t in seen["tasks"]}
    assert any("2 rows of 2" in log.message for log in seen["logs"])
    assert "surge-build-sc-summary" in {a.key for a in seen["artifacts"]}

    assert surge(["pull", "mceval", "--cache", "cache", "--store", "st"], home, tmp_path, OFFLINE_GIT) != 0
    seen = read_back(prefect_server, "pull mceval")
    assert seen["run"].state.is_failed()  # it showed Completed
    assert [(t.name, t.state.is_failed()) for t in seen["tasks"]] == [("pull mceval", True)]
    assert any(log.level >= 30 and "cannot clone" in log.message for log in seen["logs"])
    assert not (
        home / ".local" / "state" / "surge" / "prefect" / "prefect.db"
    ).exists()  # no server of its own
