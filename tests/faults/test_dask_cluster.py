"""A worker of a real cluster dies mid-job: `surge run --dask-address` still completes, with every planned
run stored exactly once and the same rows as a local run.

The cluster is containers with their own addresses on a private network (tests/faults/cluster.py): Prefect's
API, a Dask scheduler, two workers and the command's host, all sharing the store's folder. When some rows
are stored and others are not, and a worker is running a program in its sandbox, the test kills that
worker (`docker kill`: SIGKILL to everything in it at once). Run once by `make test`; `make soak` runs it
SURGE_SOAK_ROUNDS times, each round on a fresh cluster.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import platform
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.cli import main
from pipeline.store import Store
from sandboxes.backends.bwrap import SANDBOX_UID_COUNT, SANDBOX_UID_FIRST
from tests.conftest import REPO_ROOT, require_tool
from tests.docker.conftest import (
    BUILD_TIMEOUT_S,
    build_images,
    build_prerequisite_missing,
    engine_running,
    image_present,
)
from tests.faults.cluster import IMAGE, SCHEDULER_PORT, Cluster, docker, start_surge_cluster
from tests.soak import SOAK_ROUNDS

if importlib.util.find_spec("prefect_dask") is None or importlib.util.find_spec("distributed") is None:
    pytest.skip("needs prefect-dask and dask[distributed] (pip install -e .)", allow_module_level=True)

PROGRAMS = 32
BATCH_SIZE = 2  # 16 batches: the killed worker has finished some and holds one, the other worker the rest
# Each program sleeps, so a batch lasts ~1.7 s whatever the machine's load: the head start (batches run while
# the command's flow starts, ~6 s here) cannot take them all, and the job still lasts seconds, not minutes.
# Its output and exit code vary with n.
PROGRAM = "import time; time.sleep(0.8); print({n} * {n}); raise SystemExit({n} % 3)"
JOB_TIMEOUT_S = 240.0

pytestmark = [pytest.mark.slow, pytest.mark.soak, pytest.mark.timeout(BUILD_TIMEOUT_S + 600)]


def build_current_image() -> None:
    """Build the image through dockerfiles/build.sh, which skips it when its inputs are unchanged (about a
    second), so a changed pins line or Dockerfile is never tested with the image of the old ones."""
    if not engine_running():
        pytest.skip("needs a running Docker engine (`docker info` failed)")
    missing = build_prerequisite_missing("bookworm")
    if missing and not image_present(IMAGE):
        pytest.skip(
            f"image {IMAGE} is not built and cannot be here ({missing}): bash dockerfiles/build.sh dask"
        )
    if missing:
        return  # the image built where it could be: the one there is
    lock_path = REPO_ROOT / ".surge" / "image-build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be building it
        build_images("bookworm", ["dask"])


@pytest.fixture(scope="module")
def cluster_image() -> None:
    """The dask image (built through dockerfiles/build.sh when missing), able to run this virtualenv."""
    if Path(sys.base_prefix) != Path("/usr") or sys.prefix == sys.base_prefix:
        pytest.skip(
            "the cluster's containers run this virtualenv: make it from /usr/bin/python3 (make setup)"
        )
    build_current_image()
    # The same Python release runs the virtualenv's compiled packages (Debian's security updates of it
    # keep its ABI); another release would not import them.
    theirs = docker("run", "--rm", IMAGE, "python3", "-c", "import platform as p; print(p.python_version())")
    if theirs.strip() != platform.python_version():
        pytest.skip(f"{IMAGE} has Python {theirs.strip()}, this virtualenv {platform.python_version()}: "
                    "rebuild the image (bash dockerfiles/build.sh --suites bookworm dask)")  # fmt: skip


def write_programs(folder: Path) -> Path:
    path = folder / "programs.jsonl"
    lines = [json.dumps({"language": "python", "source": PROGRAM.format(n=n)}) for n in range(PROGRAMS)]
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def local_rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """The same programs run here, without Dask: the rows the cluster must store."""
    require_tool("bwrap")
    folder = tmp_path_factory.mktemp("cluster-local")
    command = ["run", str(write_programs(folder)), "--store", str(folder / "store")]
    assert main([*command, "--batch-size", str(BATCH_SIZE)]) == 0
    return rows_of(folder / "store")


@pytest.fixture
def cluster(cluster_image: None, tmp_path: Path) -> Iterator[Cluster]:
    made = Cluster(tmp_path)
    try:
        yield made
    finally:
        made.remove()  # every container and the network, even when the test failed


def rows_of(store: Path) -> dict[str, tuple[str, str]]:
    return {r.run_id: (r.verdict.value, r.label) for r in Store(store).runs.records()}


def stored_run_ids(store: Path) -> list[str]:
    """Every run id in every visible runs part, duplicates kept: what a reader of the files sees."""
    parts = sorted((store / "runs").glob("part-*.parquet"))
    return [i for part in parts for i in pq.read_table(part, columns=["run_id"]).column("run_id").to_pylist()]


def stored_rows_count(store: Path) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in (store / "runs").glob("part-*.parquet"))


def in_a_program(cluster: Cluster, host: str) -> bool:
    """A process of the host runs under a sandbox uid: a program of a batch is running there now."""
    return any(
        SANDBOX_UID_FIRST <= uid < SANDBOX_UID_FIRST + SANDBOX_UID_COUNT for uid in cluster.process_uids(host)
    )


def flow_began(cluster: Cluster) -> bool:
    """The command's flow has connected to the scheduler: from here on every batch is a Prefect task run
    (before it, a head start submits batches through a bare Dask client, flows/head_start.py)."""
    return "Receive client connection: PrefectDaskClient" in cluster.logs("scheduler")


def kill_mid_job(
    cluster: Cluster, workers: list[str], store: Path, job: subprocess.Popen[str]
) -> tuple[str, int]:
    """Kill a worker during the flow's task runs, once some rows are stored and some are not, while it runs
    a program; returns which worker and how many rows were stored at that moment."""
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while time.monotonic() < deadline and job.poll() is None:
        stored = stored_rows_count(store) if (store / "runs").is_dir() else 0
        if PROGRAMS // 2 <= stored < PROGRAMS and flow_began(cluster):
            busy = [worker for worker in workers if in_a_program(cluster, worker)]
            if busy:
                cluster.kill(busy[0])
                return busy[0], stored
        time.sleep(0.2)
    out, err = job.communicate(timeout=10) if job.poll() is not None else ("", "(still running)")
    raise AssertionError(
        "the job ended (or stalled) before a worker could be killed inside a program during the flow: "
        f"exit code {job.returncode}, {stored_rows_count(store)} rows stored\nstdout:\n{out}\n"
        f"stderr:\n{err[-3000:]}\nscheduler:\n{cluster.logs('scheduler')[-3000:]}"
    )


@pytest.mark.parametrize("soak_round", range(SOAK_ROUNDS))
def test_a_worker_killed_mid_job_loses_no_row_and_stores_none_twice(
    soak_round: int,
    cluster: Cluster,
    local_rows: dict[str, tuple[str, str]],
    tmp_path: Path,
) -> None:
    workers = start_surge_cluster(cluster, workers=2)
    store = tmp_path / "store"
    command = ["pipeline.cli", "run", str(write_programs(tmp_path)), "--store", str(store), "--json"]
    command += ["--batch-size", str(BATCH_SIZE), "--dask-address", f"tcp://scheduler:{SCHEDULER_PORT}"]
    job = cluster.run_in_foreground("client", command)
    try:
        killed, stored_at_kill = kill_mid_job(cluster, workers, store, job)
        out, err = job.communicate(timeout=JOB_TIMEOUT_S)
    finally:
        if job.poll() is None:
            job.kill()
    scheduler_log = cluster.logs("scheduler")
    context = f"stdout:\n{out}\nstderr:\n{err[-3000:]}\nscheduler:\n{scheduler_log[-3000:]}"
    assert job.returncode == 0, context
    assert f"name: {killed}" in scheduler_log.split("Remove worker", 1)[-1], context  # it saw the death
    ids = stored_run_ids(store)
    assert 0 < stored_at_kill < PROGRAMS
    assert {i: n for i, n in Counter(ids).items() if n > 1} == {}, context  # no run stored twice
    assert set(ids) == set(local_rows), context  # no run lost
    assert rows_of(store) == local_rows
    # The killed batch's re-run finds the rows its first attempt stored before the kill (rows are stored
    # every SURGE_FLUSH_EVERY_S): it counts them as found stored, not as runs.
    summary = json.loads(out)
    assert summary["runs"] + summary["found_stored"] == PROGRAMS, summary
