"""A surge cluster of containers for the fault tests: each "host" is a container with its own address on a
private Docker network made for one test, all of them on the image of dockerfiles/dask.

The hosts are the Prefect API (``prefect``), the Dask scheduler (``scheduler``), workers (``w1``, ``w2``...)
and the command's host (``client``), which runs ``surge run --dask-address tcp://scheduler:8786``. None of
them holds the repository: each runs this checkout and its virtualenv from a read-only bind mount at the
same absolute path, and sees the test's scratch folder (the store) at the same path, read-write, as a shared
filesystem would give every host of a real cluster. The network is ``--internal``: nothing on it reaches
outside, and the test reaches its hosts only through the Docker engine (``docker exec``, ``logs``, ``top``).
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from tests.conftest import REPO_ROOT

IMAGE = "surge/dask:bookworm"
SCHEDULER_PORT = 8786
PREFECT_PORT = 4200
TEST_LABEL = "org.surge.test=dask-cluster"  # every container and network, so leftovers are easy to find
READY_TIMEOUT_S = 150.0
DOCKER_TIMEOUT_S = 60.0
# What a worker needs for the bwrap sandbox (run as real root, as on a root host: programs get reserved
# uids, sandboxes/backends/bwrap.py), each found missing by trying without it on Docker 20+ here:
WORKER_PRIVILEGES = [
    # bwrap makes its mount, PID, IPC, UTS and network namespaces as root without a user namespace
    # ("Creating new namespace failed: Operation not permitted" without it)
    *("--cap-add", "SYS_ADMIN"),
    # it brings up loopback in the program's empty network namespace ("loopback: Failed RTM_NEWADDR")
    *("--cap-add", "NET_ADMIN"),
    # Docker's default seccomp profile refuses pivot_root even with SYS_ADMIN
    *("--security-opt", "seccomp=unconfined"),
    # Docker hides parts of /proc (kcore, sysrq-trigger...) under mounts, and the kernel refuses a fresh
    # proc mount for the sandbox's PID namespace while the one it can see is partly covered
    *("--security-opt", "systempaths=unconfined"),
]
# `--privileged` would grant all of this and more (every device, every capability), and fails outright
# where the engine itself lacks a capability ("unable to apply caps": this machine's has no SYS_RESOURCE).


def docker(*args: str, timeout_s: float = DOCKER_TIMEOUT_S, check: bool = True) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout_s)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])}... failed: {done.stderr.strip()}")
    return done.stdout


def shared_paths(scratch: Path) -> list[str]:
    """Bind mounts at the same path on every host: the checkout and its virtualenv read-only, the scratch
    folder (store, programs) read-write."""
    code = {REPO_ROOT.resolve(), Path(sys.prefix).resolve()}
    mounts = [f"{path}:{path}:ro" for path in sorted(code) if not any(p in path.parents for p in code)]
    return [item for mount in [*mounts, f"{scratch}:{scratch}"] for item in ("-v", mount)]


class Cluster:
    """The test's private network and its hosts; ``remove()`` takes all of them away, whatever happened."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.prefix = f"surge-cluster-{uuid.uuid4().hex[:10]}"
        self.hosts: list[str] = []
        self.network = ""
        docker("network", "create", "--internal", "--label", TEST_LABEL, self.prefix)
        self.network = self.prefix

    def name(self, host: str) -> str:
        return f"{self.prefix}-{host}"

    def run_args(self, host: str, privileges: list[str]) -> list[str]:
        """`docker run` up to the image: the host's name, address, mounts and environment."""
        self.hosts.append(host)
        environment = {
            "PREFECT_HOME": "/tmp/prefect",  # each host's own, inside its container
            "PREFECT_API_URL": f"http://prefect:{PREFECT_PORT}/api",
            "DASK_CONFIG": str(REPO_ROOT / "dockerfiles" / "dask"),
            "PYTHONPATH": str(REPO_ROOT),  # the scheduler and workers import flows/ and pipeline/
            # Where batches store their finished rows during the batch (pipeline.batches' flush interval),
            # every program's row is stored as it ends, so the killed batch holds some stored rows and its
            # re-run must skip them. Batches that store rows only at their end ignore it.
            "SURGE_FLUSH_EVERY_S": "0.5",
        }
        return [
            "run", "--name", self.name(host), "--hostname", host, "--label", TEST_LABEL,
            "--network", self.network, "--network-alias", host,
            "--init",  # a PID 1 that reaps: the worker's sandboxes leave orphans to it
            *privileges, *shared_paths(self.scratch),
            *(item for name, value in environment.items() for item in ("-e", f"{name}={value}")),
            "-w", "/tmp", IMAGE,
        ]  # fmt: skip

    def start(self, host: str, argv: list[str], privileges: list[str] | None = None) -> None:
        """A host running ``argv`` in the background."""
        docker(*self.run_args(host, ["--detach", *(privileges or [])]), *argv)

    def start_python(self, host: str, module_args: list[str], privileges: list[str] | None = None) -> None:
        self.start(host, [sys.executable, "-m", *module_args], privileges)

    def run_in_foreground(self, host: str, module_args: list[str]) -> subprocess.Popen[str]:
        """A host running ``python -m MODULE_ARGS`` attached: its exit code and output are the Popen's."""
        return subprocess.Popen(
            ["docker", *self.run_args(host, []), sys.executable, "-m", *module_args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def logs(self, host: str) -> str:
        done = subprocess.run(
            ["docker", "logs", self.name(host)], capture_output=True, text=True, timeout=DOCKER_TIMEOUT_S
        )
        return done.stdout + done.stderr

    def running(self, host: str) -> bool:
        state = docker("inspect", "--format", "{{.State.Running}}", self.name(host), check=False)
        return state.strip() == "true"

    def process_uids(self, host: str) -> list[int]:
        """The uids of every process in the host's container, as the engine's `docker top` sees them."""
        # ps's columns: the engine needs the pid column to pick the container's processes out of the host's
        table = docker("top", self.name(host), "-eo", "uid,pid").splitlines()[1:]
        return [int(row.split()[0]) for row in table if row.split() and row.split()[0].isdigit()]

    def kill(self, host: str) -> None:
        """SIGKILL to every process of the host at once: a machine that lost power, as its peers see it."""
        docker("kill", self.name(host))

    def wait_until(self, what: str, ready: Callable[[], bool], hosts: list[str]) -> None:
        """Poll ``ready`` until it holds; fail with the hosts' logs if one stops or time runs out."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if ready():
                return
            for host in hosts:
                if not self.running(host):
                    raise AssertionError(f"{host} stopped before {what}:\n{self.logs(host)[-3000:]}")
            time.sleep(0.5)
        tails = "\n".join(f"--- {host}\n{self.logs(host)[-2000:]}" for host in hosts)
        raise AssertionError(f"{what}: not within {READY_TIMEOUT_S:.0f} s\n{tails}")

    def remove(self) -> None:
        names = [self.name(host) for host in self.hosts]
        if names:
            docker("rm", "--force", "--volumes", *names, check=False)
        if self.network:
            docker("network", "rm", self.network, check=False)


def start_surge_cluster(cluster: Cluster, workers: int) -> list[str]:
    """Prefect's API, a Dask scheduler and ``workers`` one-thread workers, deployed as docs/scale-out.md
    says; returns the workers' host names once every one has registered with the scheduler."""
    cluster.start_python("prefect", ["flows.api_server", "--host", "0.0.0.0", "--port", str(PREFECT_PORT)])
    scheduler = ["distributed.cli.dask_scheduler", "--host", "scheduler", "--port", str(SCHEDULER_PORT)]
    cluster.start_python("scheduler", [*scheduler, "--no-dashboard", "--preload", "flows.dask_preload"])
    names = [f"w{n + 1}" for n in range(workers)]
    for name in names:
        worker = ["distributed.cli.dask_worker", f"tcp://scheduler:{SCHEDULER_PORT}", "--host", name]
        worker += ["--name", name, "--nthreads", "1", "--no-dashboard"]
        worker += ["--preload", "flows.dask_preload", "--no-nanny"]
        cluster.start_python(name, worker, WORKER_PRIVILEGES)
    health = f"import urllib.request as u; u.urlopen('http://127.0.0.1:{PREFECT_PORT}/api/health', timeout=2)"

    def api_answers() -> bool:
        probe = ["docker", "exec", cluster.name("prefect"), "python3", "-c", health]
        return subprocess.run(probe, capture_output=True, timeout=DOCKER_TIMEOUT_S).returncode == 0

    cluster.wait_until("Prefect's API answers", api_answers, ["prefect"])

    def registered() -> bool:
        return all("Registered to:" in cluster.logs(name) for name in names)

    cluster.wait_until("every worker registered", registered, ["scheduler", *names])
    return names
