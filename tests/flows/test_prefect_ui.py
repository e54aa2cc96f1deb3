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
from contextlib import contextmanager
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
    show = "from flows.settings import choose_settings; chosen = choose_settings(); "
    show += "print(chosen.api_url, chosen.home)"
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
    with running_prefect_server(tmp_path_factory.mktemp("server-home")) as (url, _):
        yield url


@contextmanager
def running_prefect_server(home: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
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
        yield url, server
    finally:
        if server.poll() is None:
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
        FlowRunFilterId,
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
            # filtered by the server: a read returns 200 rows at most, in the order of random ids
            this_run = FlowRunFilter(id=FlowRunFilterId(any_=[run.id]))
            tasks = await client.read_task_runs(flow_run_filter=this_run)
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


# What Prefect's own background senders wrote to stderr at a command's end (the events worker draining at
# the interpreter's exit, the log worker failing once the command's server had stopped).
PREFECT_NOISE = (
    "EventsWorker",
    "APILogWorker",
    "Still processing items",
    "Error logging to API",
    "Traceback",
)
STDERR_AT_MOST_BYTES = 1024  # a command's own lines: one progress line, a few one-line errors


def assert_quiet(stderr: bytes, what: str) -> None:
    text = stderr.decode(errors="replace")
    assert not [noise for noise in PREFECT_NOISE if noise in text], f"{what}: {text[-3000:]}"
    assert len(stderr) <= STDERR_AT_MOST_BYTES, f"{what}: {len(stderr)} bytes: {text[-3000:]}"


EMIT_THEN_EXIT = """
from flows.engine import Engine
from pipeline.cli import exit_now
with Engine() as engine, engine.connected():  # as a command's flows do: events still queued at the end
    from prefect.events import emit_event
    for number in range(300):
        emit_event(event="surge.test.queued", resource={"prefect.resource.id": f"surge.test.{number}"})
exit_now(0)
"""


@pytest.mark.slow
def test_events_still_queued_when_a_command_ends_are_sent_without_a_word_on_stderr(
    prefect_server: str, tmp_path: Path
) -> None:
    """Made certain rather than left to timing: 300 events queued as the work ends (a short command's
    last task runs' events, on a slow machine) printed "EventsWorker - Still processing items"."""
    env = {**user_env(tmp_path), "PREFECT_API_URL": prefect_server, "PYTHONPATH": str(REPOSITORY)}
    done = subprocess.run(
        [sys.executable, "-c", EMIT_THEN_EXIT], env=env, cwd=tmp_path, capture_output=True, timeout=300
    )
    assert done.returncode == 0
    assert_quiet(done.stderr, "300 queued events")


@pytest.mark.slow
@pytest.mark.parametrize("server", ["users", "own"])
def test_short_and_failing_commands_leave_only_their_own_lines_on_stderr(
    prefect_server: str, tmp_path: Path, require_bwrap: None, server: str
) -> None:
    """Short commands end while events are still being sent: against the user's server and against the
    command's own, one run of one program, a build of one item, a command refused early, a failed pull."""
    extra = {"PREFECT_API_URL": prefect_server} if server == "users" else {}
    env = {**user_env(tmp_path), **extra}
    (tmp_path / "p.jsonl").write_text(json.dumps({"language": "python", "source": "print(1)"}) + "\n")
    commands = {
        "run of one program": (["run", "p.jsonl"], 0, {}),
        "build of one item": (["build", "sc", "--n", "1"], 0, {}),
        "refused early": (["run", "missing.jsonl"], 2, {}),
        "failed pull": (["pull", "mceval", "--cache", "cache"], 1, OFFLINE_GIT),
    }
    for what, (argv, code, more_env) in commands.items():
        done = subprocess.run(
            [sys.executable, "-m", "pipeline.cli", *argv, "--store", "st"],
            env={**env, **more_env}, cwd=tmp_path, capture_output=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == code, (what, done.stderr.decode(errors="replace"))
        assert_quiet(done.stderr, what)


@pytest.mark.slow
def test_ctrl_c_during_a_run_is_one_line(prefect_server: str, tmp_path: Path, require_bwrap: None) -> None:
    """Interrupted while its flow runs (its batches sleeping): exit 130, one line, none of Prefect's; at
    once, not when the programs would have ended (the flow's task runner waits for its batches)."""
    sleepers = [
        {"language": "python", "source": f"import time\ntime.sleep(90)\nprint({i})\n"} for i in range(3)
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sleepers))
    env = {**user_env(tmp_path), "PREFECT_API_URL": prefect_server}
    command = [sys.executable, "-m", "pipeline.cli", "run", "p.jsonl", "--store", "st", "--batch-size", "1"]
    with subprocess.Popen(command, env=env, cwd=tmp_path, stderr=subprocess.PIPE) as process:
        wait_until_running(prefect_server, "run 3 programs × default", process)  # a name of its own here
        process.send_signal(signal.SIGINT)
        try:
            _, stderr = process.communicate(timeout=45)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("an interrupted command waited for its sandboxed programs to end")
    assert process.returncode == 130, stderr.decode(errors="replace")
    assert b"interrupted" in stderr
    assert_quiet(stderr, "Ctrl-C")


def wait_until_running(api_url: str, flow_run_name: str, process: subprocess.Popen[bytes]) -> None:
    """Until the command's flow run is Running on the server (its batch is then under way)."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if read_back(api_url, flow_run_name)["run"].state.is_running():
                return
        except ValueError:  # not created yet
            pass
        time.sleep(0.5)
    pytest.fail(f"the flow run {flow_run_name!r} never ran")


@pytest.mark.slow
def test_an_audit_links_the_html_report_it_wrote(
    prefect_server: str, tmp_path: Path, require_bwrap: None
) -> None:
    home = user_home_with_profile(tmp_path / "home", prefect_server)
    dataset = REPOSITORY / "sources" / "samples" / "surge-released" / "tc.json"
    argv = ["audit", str(dataset), "--limit", "2", "--store", "st", "--report", "out/audit.html"]
    assert surge(argv, home, tmp_path) == 0
    seen = read_back(prefect_server, "audit tc × default")
    assert seen["run"].state.is_completed() and {"audit", "subset:tc"} <= set(seen["run"].tags)
    # Prefect stores a link artifact as the markdown of a link: "[HTML report](file:///...)".
    (link,) = [a for a in seen["artifacts"] if a.key == "surge-audit-summary-report"]
    report = tmp_path / "out" / "audit.html"
    assert link.data == f"[HTML report]({report.resolve().as_uri()})"
    assert report.is_file() and "<html" in report.read_text(encoding="utf-8").lower()
    assert "surge-audit-summary" in {a.key for a in seen["artifacts"]}


@pytest.mark.slow
def test_a_server_that_stops_mid_command_is_one_line_not_a_dump_per_event(
    tmp_path: Path, require_bwrap: None
) -> None:
    """The user's server stops while batches still run: exit 1 with the command's line and fix; Prefect's
    senders say once that they failed (they printed each lost event's ~2 KB repr, and exit 70 followed)."""
    sleepers = [
        {"language": "python", "source": f"import time\ntime.sleep(6)\nprint({i})\n"} for i in range(3)
    ]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(s) + "\n" for s in sleepers))
    (tmp_path / "server").mkdir()
    with running_prefect_server(tmp_path / "server") as (url, server):
        # Each batch left when the server stops waits out Prefect's client retries before the command can
        # end: by default 5, backing off 2, 4 ... 32 s (about a minute a batch, three minutes here). The
        # retries are the user's setting; one keeps this test to seconds and the output is the same.
        env = {**user_env(tmp_path), "PREFECT_API_URL": url, "PREFECT_CLIENT_MAX_RETRIES": "1"}
        argv = ["run", "p.jsonl", "--store", "st", "--batch-size", "1", "--workers", "1"]
        command = [sys.executable, "-m", "pipeline.cli", *argv]
        with subprocess.Popen(command, env=env, cwd=tmp_path, stderr=subprocess.PIPE) as process:
            wait_until_running(url, "run 3 programs × default", process)
            os.killpg(server.pid, signal.SIGTERM)
            _, stderr = process.communicate(timeout=300)
    text = stderr.decode(errors="replace")
    assert process.returncode == 1, text
    assert "stopped answering" in text and "fix: run the command again" in text
    assert text.count("failed to process item") == 0 and text.count("failed to send an item") <= 2, text
    assert len(stderr) <= 3 * STDERR_AT_MOST_BYTES, text
