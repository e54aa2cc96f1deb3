"""Containers stay warm between the Docker backends of one process (a job opens one backend per batch),
as bwrap's runners do (tests/sandboxes/test_warm_runners.py); what a program may have spoilt never is."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from pipeline.records import Program, Verdict
from tests.sandboxes.conftest import run_one

pytestmark = pytest.mark.usefixtures("surge_images")


def run_in_new_backend(cache_dir: Path, source: str) -> tuple[Any, list[str], int]:
    """A program in a backend of its own: its result, the containers it used, how many it started."""
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(cache_dir=cache_dir) as backend:
        result = run_one(backend, Program.single("python", source))  # run limits: 1 CPU-s
        launcher = backend.launcher
        return result, [runner.container_id for runner in launcher.all_runners], launcher.containers_started


def container_exists(container_id: str) -> bool:
    probe = subprocess.run(["docker", "container", "inspect", container_id], capture_output=True, timeout=30)
    return probe.returncode == 0


def test_the_next_backend_takes_the_container_the_last_one_left(tmp_path: Path) -> None:
    first, first_ids, _ = run_in_new_backend(tmp_path, "open('/tmp/left', 'w').write('x'); print(1)")
    looks = "import os; print(os.path.exists('/tmp/left'))"
    second, second_ids, started = run_in_new_backend(tmp_path, looks)
    assert first.label == "1\n" and second_ids == first_ids and started == 0
    assert second.verdict is Verdict.OK and second.label == "False\n"  # the workspace was reset
    assert second.provenance.image_digest == first.provenance.image_digest


def test_a_container_a_program_may_have_spoilt_is_not_kept(tmp_path: Path) -> None:
    spoilt, spoilt_ids, _ = run_in_new_backend(tmp_path, "while True: pass")
    assert spoilt.verdict is Verdict.CPU_TIME_LIMIT, spoilt.run
    after, after_ids, started = run_in_new_backend(tmp_path, "print(2)")
    assert after.label == "2\n" and started == 1 and after_ids != spoilt_ids


def test_a_container_stopped_while_idle_is_not_served(tmp_path: Path) -> None:
    _, ids, _ = run_in_new_backend(tmp_path, "print(1)")
    subprocess.run(["docker", "kill", ids[0]], capture_output=True, timeout=60, check=True)
    result, new_ids, started = run_in_new_backend(tmp_path, "print(2)")
    assert result.verdict is Verdict.OK and result.label == "2\n", result.run
    assert started == 1 and new_ids != ids


def test_the_kept_containers_go_with_the_process(tmp_path: Path) -> None:
    """Nothing removes them at exit: the process's end closes their sockets, their runners exit on it,
    and the engine removes each container (auto_remove), as after a kill -9."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status and a file
        _, ids, _ = run_in_new_backend(tmp_path, "print(1)")
        (tmp_path / "ids").write_text("\n".join(ids))
        os._exit(0)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    ids = (tmp_path / "ids").read_text().split()
    assert ids
    deadline = 30
    while deadline and any(container_exists(i) for i in ids):
        time.sleep(1)
        deadline -= 1
    assert not any(container_exists(i) for i in ids)
