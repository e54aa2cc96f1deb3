"""The runner core over a scripted launcher: what the core decides, without any sandbox.

The fake runner answers jobs the way sandboxes/inner/runner.py does (one run per repeat, artifacts on
export), so the core's compile cache, shared runs, verdicts and crash handling are checked here in
milliseconds; the real runners are tested in test_results.py, test_hostile.py and tests/docker/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.records import EnvironmentProfile, ExecutionSetting, Program, RunRequest, Verdict
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.core import PathMap, RunnerCore, SandboxCrash, Unplaceable
from sandboxes.profiles import get_profile

HELLO_CPP = '#include <cstdio>\nint main(){ std::puts("hi"); }\n'


def raw_run(argv: list[str], status: str = "ok", stdout: str = "") -> dict[str, Any]:
    return {
        "argv": argv, "status": status, "stdout": stdout, "stderr": "", "stdout_truncated": False,
        "stderr_truncated": False, "exit_code": 0, "signal": None, "cpu_user_s": 0.01, "cpu_sys_s": 0.0,
        "wall_s": 0.02, "max_rss_kib": 1000,
    }  # fmt: skip


class ScriptedRunner:
    """Compiles succeed with one artifact; runs print 'hi'; `crash_on` makes a job fail like a dead runner."""

    def __init__(self, crash_on: str | None = None) -> None:
        self.paths = PathMap()
        self.jobs: list[dict[str, Any]] = []
        self.crash_on = crash_on
        self.closed = False

    def call(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self.jobs.append(job)
        phase = job["phases"][0]
        if phase["name"] == self.crash_on:
            raise SandboxCrash("runner exited (-9)")
        runs = [raw_run(phase["argv"], stdout="hi\n") for _ in range(phase.get("repeat", 1))]
        if phase["name"] == "compile":
            artifact = {"path": "test", "b64": "AA==", "mode": 0o755, "sha256": "0" * 64}
            return {"ok": True, "phases": [{"runs": [raw_run(phase["argv"])]}],
                    "artifacts": {"digest": "d" * 64, "files": [artifact]}}  # fmt: skip
        return {"ok": True, "phases": [{"runs": runs}]}

    def close(self) -> None:
        self.closed = True


class ScriptedLauncher:
    """One place: the launcher itself, with a set of tools and one runner at a time."""

    name = "scripted"

    def __init__(self, cache_dir: Path, tools: set[str], crash_on: str | None = None) -> None:
        self.cache = CompileCache(cache_dir)
        self.memo = RunMemo()
        self.image_digest: str | None = "img@sha256:abc"
        self.tools = tools
        self.crash_on = crash_on
        self.started: list[ScriptedRunner] = []
        self.released: list[tuple[ScriptedRunner, bool]] = []

    def place(self, request: RunRequest) -> ScriptedLauncher:
        if request.profile.image == "missing":
            raise Unplaceable(Verdict.TOOLCHAIN_MISSING, "image missing is not built: make images")
        return self

    def has_tool(self, tool: str) -> bool:
        return tool in self.tools

    def tool_version(self, tool: str) -> str | None:
        return f"{tool} 1.0" if tool in self.tools else None

    def acquire(self) -> ScriptedRunner:
        self.started.append(ScriptedRunner(self.crash_on))
        return self.started[-1]

    def release(self, runner: ScriptedRunner, broken: bool) -> None:
        self.released.append((runner, broken))

    def close(self) -> None:
        pass


def run(launcher: ScriptedLauncher, program: Program, **kw: Any) -> Any:
    request = RunRequest(program=program, profile=kw.pop("profile", get_profile("default")), **kw)
    with RunnerCore(launcher) as core:
        return next(iter(core.run_batch([request])))


def test_compile_cache_and_shared_runs_are_the_cores(tmp_path: Path) -> None:
    launcher = ScriptedLauncher(tmp_path, {"g++"})
    program = Program.single("cpp", HELLO_CPP, protocol="compile_then_run")
    first = run(launcher, program, setting=ExecutionSetting.from_surge_key("g++-C++11--O0"))
    again = run(launcher, program, setting=ExecutionSetting.from_surge_key("g++-C++11--O0"))
    other = run(launcher, program, setting=ExecutionSetting.from_surge_key("g++-C++14--O0"))
    assert first.verdict is Verdict.OK and first.label == "hi\n" and first.compile.detail == "compiled"
    assert (
        "compile cache hit" in again.compile.detail and "shared run of identical binary" in again.run.detail
    )
    assert "shared run of identical binary" in other.run.detail  # same artifact digest, another -std
    assert first.provenance.backend == "scripted" and first.provenance.image_digest == "img@sha256:abc"
    assert first.provenance.toolchain_versions == {"g++": "g++ 1.0"}
    assert [broken for _, broken in launcher.released] == [False, False, False]


def test_repeats_run_in_one_job_and_count_distinct_outputs(tmp_path: Path) -> None:
    launcher = ScriptedLauncher(tmp_path, {"python3"})
    result = run(launcher, Program.single("python", "print('hi')"), repeats=3)
    assert result.repeats == 3 and result.deterministic and result.compile is None
    assert launcher.started[0].jobs[0]["phases"][0]["repeat"] == 3


def test_what_cannot_run_is_a_verdict_never_an_exception(tmp_path: Path) -> None:
    program = Program.single("python", "print('hi')")
    no_tool = run(ScriptedLauncher(tmp_path, set()), program)
    assert no_tool.verdict is Verdict.TOOLCHAIN_MISSING and "`python3` is not installed" in no_tool.run.detail
    nowhere = EnvironmentProfile(name="nowhere", image="missing")
    no_image = run(ScriptedLauncher(tmp_path, {"python3"}), program, profile=nowhere)
    assert no_image.verdict is Verdict.TOOLCHAIN_MISSING and "make images" in no_image.run.detail
    assert no_image.provenance.toolchain_versions == {"python3": "missing"}


def test_a_crashed_runner_is_a_sandbox_error_and_is_given_back_broken(tmp_path: Path) -> None:
    launcher = ScriptedLauncher(tmp_path, {"python3"}, crash_on="run")
    result = run(launcher, Program.single("python", "print('hi')"))
    assert result.verdict is Verdict.SANDBOX_ERROR and "runner exited" in result.run.detail
    assert launcher.released == [(launcher.started[0], True)]
