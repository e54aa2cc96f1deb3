"""The run flow under Prefect for real: references through the API, Failed tasks and flows, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.errors import SandboxUnavailable
from pipeline.store import Store

BIG_SOURCE_BYTES = 1 << 20
BIG_STDIN_BYTES = 50_000_000  # a 50 MB stdin failed on Prefect's 512 KiB parameter limit


def prefect_runs() -> tuple[list[Any], list[Any]]:
    """The newest flow runs and every task run of them. Prefect's ids are random (uuid4) and a read
    returns 200 rows at most: a session of the whole suite makes more flow runs than that, and read by
    id, the test's own was missing at random."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
    from prefect.client.schemas.sorting import FlowRunSort

    from flows.engine import using_engine

    # the API the commands used: the session's engine (tests/conftest.py), or the one a test opened
    with using_engine() as engine, engine.connected(), get_client(sync_client=True) as client:
        flow_runs = client.read_flow_runs(sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=20)
        ids = FlowRunFilter(id=FlowRunFilterId(any_=[run.id for run in flow_runs]))
        return flow_runs, client.read_task_runs(flow_run_filter=ids)


def write_programs(path: Path, sources: list[str]) -> Path:
    path.write_text("".join(json.dumps({"language": "python", "source": s}) + "\n" for s in sources))
    return path


@pytest.mark.slow
def test_only_references_reach_prefect_whatever_the_program_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    padding = "#" * BIG_SOURCE_BYTES
    programs = write_programs(tmp_path / "p.jsonl", [f"print(1)\n{padding}", "print(2)"])
    reads_stdin = {"language": "python", "source": "import sys; print(len(sys.stdin.buffer.read()))"}
    with programs.open("a") as lines:
        lines.write(json.dumps({**reads_stdin, "stdin": "x" * BIG_STDIN_BYTES}) + "\n")
    store = tmp_path / "store"
    assert main(["run", str(programs), "--store", str(store), "--batch-size", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["written"] == 3 and summary["failures"] == []
    labels = {r.label for r in Store(store).runs.records()}
    assert labels == {"1\n", "2\n", f"{BIG_STDIN_BYTES}\n"}
    flow_runs, task_runs = prefect_runs()
    (flow_run,) = [run for run in flow_runs if str(store) in json.dumps(run.parameters)]
    assert len(json.dumps(flow_run.parameters)) < 1024 and flow_run.state.is_completed()
    mine = [t for t in task_runs if t.flow_run_id == flow_run.id]
    assert len(mine) == 3 and all(t.state.is_completed() for t in mine)  # each batch is a task run
    assert all(len(json.dumps(t.model_dump(mode="json"))) < 8192 for t in mine)


@pytest.mark.slow
def test_a_batch_that_fails_for_our_reasons_is_a_failed_task_and_a_non_zero_exit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    require_bwrap: None,
) -> None:
    import sandboxes

    real_open = sandboxes.open_backend
    opened: list[int] = []

    def open_once(*args: Any, **kw: Any) -> Any:  # the first batch gets a sandbox, the second none
        opened.append(1)
        if len(opened) > 1:
            raise SandboxUnavailable("bubblewrap cannot create a namespace", hint="enable user namespaces")
        return real_open(*args, **kw)

    monkeypatch.setattr(sandboxes, "open_backend", open_once)
    programs = write_programs(tmp_path / "p.jsonl", ["print(1)", "print(2)"])
    store = tmp_path / "store"
    argv = ["run", str(programs), "--store", str(store), "--batch-size", "1", "--workers", "1"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.strip().splitlines()[-1] == (
        "surge run: error: bubblewrap cannot create a namespace (fix: enable user namespaces)"
    )
    assert Store(store).runs.count() == 1  # the finished batch is kept
    flow_runs, task_runs = prefect_runs()
    (flow_run,) = [run for run in flow_runs if str(store) in json.dumps(run.parameters)]
    assert flow_run.state.is_failed()
    states = sorted(t.state.type.value for t in task_runs if t.flow_run_id == flow_run.id)
    assert states == ["COMPLETED", "FAILED"]  # no retry for a cause that would fail again

    monkeypatch.setattr(sandboxes, "open_backend", real_open)
    assert main([*argv, "--json"]) == 0  # the rerun runs only what is missing
    again = json.loads(capsys.readouterr().out)
    assert again["already_stored"] == 1 and again["written"] == 1


def test_an_api_that_cannot_start_is_one_line_of_ours_and_never_a_verdict(
    tmp_path: Path, require_bwrap: None
) -> None:
    """A real `surge run` whose Prefect API cannot open its database: a failure of ours (exit 1), one line
    naming the API and the fix, no traceback. The head start ran the program while the API was starting:
    its row is the program's real result (printed 1, ok), kept; nothing of the API's failure is a verdict."""

    programs = write_programs(tmp_path / "p.jsonl", ["print(1)"])
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_SERVER_DATABASE_CONNECTION_URL": "sqlite+aiosqlite:////nonexistent-dir/prefect.db",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "60",
    }
    env.pop("PREFECT_API_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--store", str(tmp_path / "store")],
        capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parents[2], timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert (
        line.startswith("surge run: error: Prefect's local API did not start") and "PREFECT_API_URL" in line
    )
    rows = list(Store(tmp_path / "store").runs.records())
    assert [(row.verdict.value, row.label) for row in rows] == [("ok", "1\n")]


def start_surge_run(programs: Path, tmp_path: Path) -> subprocess.Popen[bytes]:
    """`surge run` in a process of its own, with its own local Prefect API."""
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect")}
    env.pop("PREFECT_API_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--store", str(tmp_path / "store")],
        env=env, cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.slow
def test_the_api_server_dies_with_its_command_even_on_sigkill(tmp_path: Path, require_bwrap: None) -> None:
    """A command killed outright (no atexit) leaves no Prefect server behind: the kernel ends it."""
    import signal
    import time

    import psutil

    programs = write_programs(tmp_path / "p.jsonl", ["import time; time.sleep(60)"])
    command = start_surge_run(programs, tmp_path)
    deadline = time.monotonic() + 60
    servers: list[psutil.Process] = []
    while not servers:
        assert time.monotonic() < deadline and command.poll() is None, "no API server started"
        time.sleep(0.2)
        servers = [p for p in psutil.Process(command.pid).children() if "flows.api_server" in p.cmdline()]
    command.send_signal(signal.SIGKILL)
    command.wait(timeout=10)
    gone, alive = psutil.wait_procs(servers, timeout=15)
    assert alive == [], [p.cmdline() for p in alive]


@pytest.mark.slow
def test_the_api_server_ends_after_its_command_finished_which_did_not_wait_for_it(
    tmp_path: Path, require_bwrap: None
) -> None:
    import contextlib
    import time

    import psutil

    programs = write_programs(tmp_path / "p.jsonl", ["import time; time.sleep(1); print(1)"])
    command = start_surge_run(programs, tmp_path)
    servers: list[psutil.Process] = []
    while command.poll() is None:
        with contextlib.suppress(psutil.Error):  # a child (or the command) ending as we look
            servers += [
                p
                for p in psutil.Process(command.pid).children()
                if "flows.api_server" in p.cmdline() and p not in servers
            ]
        time.sleep(0.05)
    assert command.returncode == 0 and len(servers) == 1
    gone, alive = psutil.wait_procs(servers, timeout=15)
    assert alive == [], [p.cmdline() for p in alive]
    assert [(row.verdict.value, row.label) for row in Store(tmp_path / "store").runs.records()] == [
        ("ok", "1\n")
    ]


def test_the_flow_run_carries_the_jobs_tags_and_its_task_runs_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    """A task run's tags would make it ask the API for their concurrency limits as it starts, a request
    Prefect's SQLite database refused now and then, held 2 s by the client's backoff (flows/surge_flow.py)."""
    store = tmp_path / "store"
    programs = write_programs(tmp_path / "p.jsonl", ["print(1)", "print(2)"])
    assert main(["run", str(programs), "--store", str(store), "--batch-size", "1", "--json"]) == 0
    flow_runs, task_runs = prefect_runs()
    (flow_run,) = [run for run in flow_runs if str(store) in json.dumps(run.parameters)]
    assert {"run", "profile:default"} <= set(flow_run.tags)
    batches = [task for task in task_runs if task.flow_run_id == flow_run.id]
    assert len(batches) == 2 and all(task.tags == [] for task in batches), [t.tags for t in batches]
