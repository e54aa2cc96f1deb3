"""How the runner starts programs under the sandbox uid: through the spawn helper (become.c), or, only with
--unsafe where it did not build, by Popen switching user. Both give the same user, groups and limits; the
helper also clamps the hard limits where root lacks CAP_SYS_RESOURCE (prlimit on another uid's process is
refused there) and puts up the seccomp filter, without which the sandbox refuses untrusted code."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.errors import SandboxUnavailable
from pipeline.records import Program
from sandboxes.spawn_helper import build
from tests.conftest import require_tool
from tests.sandboxes.conftest import SMALL_LIMITS, run_one

REPORT = """
import json, os, resource
names = ["RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_CORE"]
limits = {name: resource.getrlimit(getattr(resource, name)) for name in names}
try:
    resource.setrlimit(resource.RLIMIT_DATA, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    raised = True
except (ValueError, OSError):
    raised = False
print(json.dumps({"ids": [os.getuid(), os.geteuid(), os.getgid(), os.getgroups()], "limits": limits,
                  "raised": raised}))
"""


def require_sandbox_uid() -> None:
    require_tool("bwrap", "gcc")
    if os.getuid() != 0:
        pytest.skip("needs root: only a root runner switches programs to a sandbox uid")


@pytest.fixture(params=["helper", "popen"])
def spawning(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """A bwrap backend whose runners start programs one way or the other (no helper: only --unsafe)."""
    require_sandbox_uid()
    from sandboxes.backends import bwrap

    if request.param == "popen":
        monkeypatch.setattr(bwrap, "spawn_helper", lambda cache_root: None)
    with bwrap.BwrapBackend(cache_dir=tmp_path, unsafe=request.param == "popen") as backend:
        yield backend


def test_without_the_helper_the_sandbox_refuses_untrusted_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_tool("bwrap")
    from sandboxes.backends import bwrap

    monkeypatch.setattr(bwrap, "spawn_helper", lambda cache_root: None)
    with pytest.raises(SandboxUnavailable, match="seccomp") as refused:
        bwrap.BwrapBackend(cache_dir=tmp_path)
    assert "gcc" in refused.value.hint


def test_a_helper_whose_wall_fails_stops_the_runner_not_the_program(tmp_path: Path) -> None:
    """A helper that cannot put up its filter is a runner that will not start (a failure of ours, told at
    start-up), never an exec_failed verdict for each program."""
    from sandboxes.core import RUNNER_DIR

    fake = tmp_path / "become"
    fake.write_text("#!/bin/sh\necho 'no seccomp here' >&2\nexit 1\n")
    fake.chmod(0o755)
    argv = ["/usr/bin/python3", "-I", "-S", str(RUNNER_DIR / "runner.py"), "--spawn-helper", str(fake)]
    started = subprocess.run(argv, input=b"", capture_output=True, timeout=60)
    first = json.loads(started.stdout.splitlines()[0])
    assert started.returncode == 1
    assert first == {"ready": False, "error": f"spawn helper {fake} --check failed: no seccomp here"}


def test_programs_run_as_the_sandbox_user_with_their_limits(spawning: Any) -> None:
    result = run_one(spawning, Program.single("python", REPORT))
    seen = json.loads(result.run.stdout)
    uid = next(iter(spawning.launcher.sandbox_uids))
    assert seen["ids"] == [uid, uid, uid, []]
    limits = SMALL_LIMITS.run
    assert seen["limits"]["RLIMIT_NPROC"][0] == limits.processes
    assert seen["limits"]["RLIMIT_DATA"][0] == limits.memory_mib << 20
    assert seen["limits"]["RLIMIT_FSIZE"][0] == limits.file_size_bytes
    assert seen["limits"]["RLIMIT_CORE"][0] == 0


def test_through_the_helper_a_program_cannot_raise_its_limits_back(tmp_path: Path) -> None:
    require_sandbox_uid()
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=tmp_path) as backend:
        seen = json.loads(run_one(backend, Program.single("python", REPORT)).run.stdout)
    assert (tmp_path / "spawn-helper").is_dir(), "the helper was not built"
    for name in ("RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NPROC"):
        soft, hard = seen["limits"][name]
        assert soft == hard, (name, seen["limits"][name])
    assert seen["limits"]["RLIMIT_CPU"] == [SMALL_LIMITS.run.cpu_s, SMALL_LIMITS.run.cpu_s + 1]
    assert seen["raised"] is False


def test_a_file_the_kernel_cannot_execute_is_exec_failed_either_way(spawning: Any) -> None:
    runner = spawning.launcher.acquire()
    try:
        job = {
            "id": "not-a-binary",
            "files": [{"path": "main", "text": "neither ELF nor script\n", "mode": 0o755}],
            "phases": [{"name": "run", "argv": ["./main"], "env": {"PATH": "/usr/bin:/bin"}}],
        }
        run = runner.call(job, timeout_s=30)["phases"][0]["runs"][0]
    finally:
        spawning.launcher.release(runner, broken=False)
    assert run["status"] == "exec_failed"
    assert "Exec format error" in run["detail"]


def test_the_helper_is_built_once_per_source_and_compiler(tmp_path: Path) -> None:
    require_tool("gcc")
    first = build(tmp_path)
    assert first is not None and os.access(first, os.X_OK)
    stamp = first.stat().st_mtime_ns
    assert build(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp


def test_a_past_peak_of_the_runner_is_not_a_later_programs_memory(spawning: Any) -> None:
    """The runner's current size still floors ``max_rss_kib`` (docs/sandboxes.md), its earlier peak not."""
    from tests.sandboxes.conftest import request

    empty_c = Program.single("c", "int main(void) { return 0; }")
    large_stdin = Program.single("python", "import sys; print(len(sys.stdin.read()))", stdin="x" * (20 << 20))
    limits = SMALL_LIMITS.model_copy(update={"run": SMALL_LIMITS.run.model_copy(update={"wall_s": 20.0})})
    results = list(spawning.run_batch([request(large_stdin, limits=limits), request(empty_c)]))
    assert results[0].run.stdout.strip() == str(20 << 20)
    assert results[1].run.max_rss_kib < results[0].run.max_rss_kib


def test_doctor_says_whether_programs_start_behind_the_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_tool("bwrap", "gcc")
    from pipeline.stages import doctor
    from sandboxes import spawn_helper

    monkeypatch.setenv("SURGE_COMPILE_CACHE", str(tmp_path))
    assert doctor.backend_statuses()["bwrap"]["seccomp"] is True
    monkeypatch.setattr(spawn_helper, "spawn_helper", lambda cache_root: None)
    status = doctor.backend_statuses()["bwrap"]
    assert status["available"] is False and status["seccomp"] is False
    assert "apt-get install gcc" in status["hint"]


def test_a_removed_helper_is_built_again_not_handed_out(tmp_path: Path) -> None:
    """A cleared compile cache must not leave runners pointed at a helper that is gone (bwrap would mount
    nothing, Docker an empty folder, and no program could start)."""
    require_tool("gcc")
    from sandboxes.spawn_helper import spawn_helper

    first = spawn_helper(tmp_path)
    assert first is not None
    first.unlink()
    again = spawn_helper(tmp_path)
    assert again is not None and again.is_file()
