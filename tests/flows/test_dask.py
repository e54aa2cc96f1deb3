"""`--dask-address` for real: a Dask scheduler and two workers as separate processes on loopback run the
batches of `surge run` and `surge audit`; rows and labels equal those of a local run."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.audit.rows import AuditRow
from pipeline.cli import main
from pipeline.store import Store
from tests.conftest import REPO_ROOT

# Not imported here: importing prefect before the command configures it would freeze its settings.
if importlib.util.find_spec("prefect_dask") is None or importlib.util.find_spec("distributed") is None:
    pytest.skip("needs prefect-dask and dask[distributed] (pip install -e .)", allow_module_level=True)

WORKERS = 2
DETERMINISTIC = [
    '{"language": "python", "source": "print(sum(range(%d)))"}',
    '{"language": "python", "source": "import sys; print(len(sys.stdin.read()))", "stdin": "%d"}',
    '{"language": "c", "source": "#include <stdio.h>\\nint main(void){printf(\\"%%d\\\\n\\", %d * 3);}"}',
    '{"language": "python", "source": "raise SystemExit(%d %% 3)"}',
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def dask_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    scratch = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}  # the workers import flows/ and pipeline/
    logs = [open(scratch / f"{name}.log", "wb") for name in ("scheduler", "w1", "w2")]  # noqa: SIM115
    port = address.rsplit(":", 1)[1]
    scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
    scheduler += ["--port", port, "--preload", "flows.dask_preload"]  # as docs/scale-out.md deploys it
    processes = [
        subprocess.Popen(
            [*scheduler, "--no-dashboard"], env=env, cwd=scratch, stdout=logs[0], stderr=subprocess.STDOUT
        )
    ]
    for n in range(WORKERS):
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "distributed.cli.dask_worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--name",
                    f"w{n + 1}",
                    # one worker as docs/scale-out.md deploys them, one bare: both must give the same rows
                    *(["--preload", "flows.dask_preload", "--no-nanny"] if n == 0 else []),
                ],  # fmt: skip
                env={**env, "DASK_CONFIG": str(REPO_ROOT / "dockerfiles" / "dask")} if n == 0 else env,
                cwd=scratch,
                stdout=logs[n + 1],
                stderr=subprocess.STDOUT,
            )
        )
    try:
        wait_for_workers(address, WORKERS, scratch)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        for log in logs:
            log.close()


def wait_for_workers(address: str, count: int, scratch: Path, timeout_s: float = 120.0) -> None:
    """Both workers registered with the scheduler (read from their logs: no Dask client in this process)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        logs = [(scratch / f"w{n + 1}.log").read_text(errors="replace") for n in range(count)]
        if all("Registered to:" in log for log in logs):
            return
        time.sleep(0.5)
    raise AssertionError(f"the Dask workers did not register with {address}: see {scratch}")


def labels(store: Path) -> dict[str, tuple[str, str]]:
    return {r.run_id: (r.verdict.value, r.label) for r in Store(store).runs.records()}


@pytest.mark.slow
def test_surge_run_on_two_dask_workers_equals_a_local_run(
    dask_address: str, tmp_path: Path, require_bwrap: None
) -> None:
    programs = tmp_path / "programs.jsonl"
    programs.write_text("".join(line % n + "\n" for n in range(3) for line in DETERMINISTIC))
    common = ["run", str(programs), "--batch-size", "2"]
    assert main([*common, "--store", str(tmp_path / "local")]) == 0
    assert main([*common, "--store", str(tmp_path / "dask"), "--dask-address", dask_address]) == 0
    local, remote = labels(tmp_path / "local"), labels(tmp_path / "dask")
    assert len(local) == 3 * len(DETERMINISTIC) and remote == local
    assert {verdict for verdict, _ in local.values()} >= {"ok", "runtime_error"}


@pytest.mark.slow
def test_a_small_audit_on_dask_workers_equals_a_local_one(
    dask_address: str, samples: Path, tmp_path: Path, require_bwrap: None
) -> None:
    common = ["audit", str(samples / "surge-released"), "--subset", "ml", "--subset", "cl"]
    common += ["--limit", "2", "--repeats", "1", "--batch-size", "1"]
    rows = {}
    for name, extra in (("local", []), ("dask", ["--dask-address", dask_address])):
        store = tmp_path / name
        assert main([*common, "--store", str(store), "--report", str(tmp_path / f"{name}.html"), *extra]) == 0
        table = Store(store).table("audit", AuditRow, "audit_id")
        rows[name] = {(r.location, r.profile): (r.audit_class, r.observed) for r in table.records()}
    assert len(rows["local"]) >= 3 and rows["dask"] == rows["local"]


@pytest.mark.slow
def test_a_head_start_runs_batches_on_the_cluster_before_the_api_answers(
    dask_address: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    require_bwrap: None,
) -> None:
    from tests.flows.test_head_start import (
        assert_each_run_once_in_one_task_run_per_batch,
        run_with_the_api_held_back,
    )

    extra = ("--dask-address", dask_address)
    summary, at_stop, store = run_with_the_api_held_back(tmp_path, monkeypatch, capsys, *extra)
    assert at_stop and at_stop[0] >= 2  # the cluster had run batches before the flow began
    assert_each_run_once_in_one_task_run_per_batch(summary, store)
