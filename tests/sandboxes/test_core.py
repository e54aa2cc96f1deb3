"""The runner core over a scripted launcher: what the core decides, without any sandbox.

The fake runner answers jobs the way sandboxes/inner/runner.py does (one run per repeat, artifacts on
export), so the core's compile cache, shared runs, verdicts and crash handling are checked here in
milliseconds; the real runners are tested in test_results.py, test_hostile.py and tests/docker/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.records import EnvironmentProfile, ExecutionSetting, Program, RunRequest, Verdict
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.core import (
    QUEUE_AHEAD_BEHIND_S,
    QUEUE_AHEAD_MAX_BYTES,
    PathMap,
    RunnerCore,
    RunnerSpent,
    SandboxCrash,
    Unplaceable,
)
from sandboxes.profiles import get_profile

HELLO_CPP = '#include <cstdio>\nint main(){ std::puts("hi"); }\n'


def raw_run(argv: list[str], status: str = "ok", stdout: str = "") -> dict[str, Any]:
    return {
        "argv": argv, "status": status, "stdout": stdout, "stderr": "", "stdout_truncated": False,
        "stderr_truncated": False, "exit_code": 0, "signal": None, "cpu_user_s": 0.01, "cpu_sys_s": 0.0,
        "wall_s": 0.02, "max_rss_kib": 1000,
    }  # fmt: skip


class ScriptedRunner:
    """Compiles succeed with one artifact; runs print 'hi'; `crash_on` makes a job fail like a dead runner;
    a run whose stdin is `spoil_on` hits its CPU limit and spends the runner, which then refuses every
    later job unrun, as the real runner does under --spent-on. Jobs may be queued (``send``) before the
    previous result is read, as with the real runner. It has only what the core's ``Runner`` asks:
    paths, exports, queue_ahead, send, receive."""

    def __init__(self, crash_on: str | None = None, spoil_on: str | None = None) -> None:
        self.paths = PathMap()
        self.exports = None  # artifacts come back as base64
        self.jobs: list[dict[str, Any]] = []
        self.results: list[dict[str, Any] | None] = []  # None: the runner died on that job
        self.crash_on = crash_on
        self.spoil_on = spoil_on
        self.spent = False
        self.spent_seen = False  # a result read says a program spent it: nothing more is queued (Docker's)
        self.unread_at_send: list[int] = []  # results not yet read when each job was written

    @property
    def queue_ahead(self) -> bool:
        return not self.spent_seen

    def send(self, line: bytes) -> None:
        job = json.loads(line)
        self.jobs.append(job)
        self.unread_at_send.append(len(self.results))
        self.results.append(self.answer(job))

    def receive(self, timeout_s: float) -> dict[str, Any]:
        result = self.results.pop(0)
        if result is None:
            raise SandboxCrash("runner exited (-9)")
        if result.get("refused"):
            raise RunnerSpent("runner refused a job: sandbox spent")
        statuses = {run["status"] for phase in result["phases"] for run in phase["runs"]}
        self.spent_seen = self.spent_seen or statuses != {"ok"}
        return result

    def answer(self, job: dict[str, Any]) -> dict[str, Any] | None:
        if self.spent:
            return {"ok": False, "refused": True, "error": "sandbox spent", "phases": []}
        phases, artifacts = [], {"digest": None, "files": []}
        for phase in job["phases"]:
            if self.crash_on is not None and self.crash_on in (phase["name"], phase.get("stdin")):
                return None
            if phase["name"] == "compile":
                phases.append({"name": "compile", "runs": [raw_run(phase["argv"])]})
                artifact = {"path": "test", "b64": "AA==", "mode": 0o755, "sha256": "0" * 64}
                artifacts = {"digest": "d" * 64, "files": [artifact]}
            else:
                stdout = phase.get("stdin") or "hi\n"  # echoes its stdin: results are told apart
                status = "ok"
                if self.spoil_on is not None and phase.get("stdin") == self.spoil_on:
                    status, self.spent = "cpu_time_limit", True
                runs = [raw_run(phase["argv"], status, stdout) for _ in range(phase.get("repeat", 1))]
                if stdout.startswith("long"):  # a program that held its core a while
                    runs = [{**one, "wall_s": QUEUE_AHEAD_BEHIND_S} for one in runs]
                phases.append({"name": phase["name"], "runs": runs})
        return {"ok": True, "phases": phases, "artifacts": artifacts}


class ScriptedLauncher:
    """One place: the launcher itself, with a set of tools and one runner at a time."""

    name = "scripted"

    def __init__(
        self, cache_dir: Path, tools: set[str], crash_on: str | None = None, spoil_on: str | None = None
    ) -> None:
        self.cache = CompileCache(cache_dir)
        self.memo = RunMemo()
        self.image_digest: str | None = "img@sha256:abc"
        self.tools = tools
        self.crash_on = crash_on
        self.spoil_on = spoil_on
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
        self.started.append(ScriptedRunner(self.crash_on, self.spoil_on))
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


def run_all(launcher: ScriptedLauncher, programs: list[Program], **kw: Any) -> list[Any]:
    profile = kw.pop("profile", get_profile("default"))
    requests = [RunRequest(program=program, profile=profile, **kw) for program in programs]
    with RunnerCore(launcher) as core:
        return list(core.run_batch(requests))


def echo_cpp(n: int, stdin: str | None = None) -> Program:
    return Program.single("cpp", f"{HELLO_CPP}// {n}\n", stdin=stdin if stdin is not None else f"{n}\n")


def test_distinct_sources_compile_and_run_in_one_job_each_the_next_queued_while_one_runs(
    tmp_path: Path,
) -> None:
    launcher = ScriptedLauncher(tmp_path, {"g++"})
    results = run_all(launcher, [echo_cpp(n) for n in range(4)])
    assert [r.label for r in results] == ["0\n", "1\n", "2\n", "3\n"]  # in request order
    assert all(r.compile.detail == "compiled" for r in results)
    (runner,) = launcher.started
    assert [[phase["name"] for phase in job["phases"]] for job in runner.jobs] == [["compile", "run"]] * 4
    assert runner.jobs[0]["artifacts_after"] == "compile"  # hashed before the program can touch them
    assert runner.unread_at_send == [0, 1, 1, 1]  # each job written while the one before ran
    assert launcher.released == [(runner, False)]


def test_a_runner_that_breaks_costs_only_its_job_the_one_queued_behind_runs_on_a_fresh_runner(
    tmp_path: Path,
) -> None:
    launcher = ScriptedLauncher(tmp_path, {"g++"}, crash_on="die")
    results = run_all(launcher, [echo_cpp(0), echo_cpp(1, stdin="die"), echo_cpp(2), echo_cpp(3)])
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.SANDBOX_ERROR, Verdict.OK, Verdict.OK]
    assert [r.label for r in results if r.verdict is Verdict.OK] == ["0\n", "2\n", "3\n"]
    first, second = launcher.started
    assert len(first.jobs) == 3 and len(second.jobs) == 2  # job 2 was queued on the first: sent again
    assert launcher.released == [(first, True), (second, False)]


def test_a_job_queued_behind_a_program_that_spent_its_runner_is_refused_and_runs_on_a_fresh_one(
    tmp_path: Path,
) -> None:
    """Docker's containers take jobs queued ahead: one queued behind a program that hit a limit (which
    may have spoilt the container) is refused unrun, and runs again on a fresh runner, as does the one
    queued behind it."""
    launcher = ScriptedLauncher(tmp_path, {"g++"}, spoil_on="hog")
    results = run_all(launcher, [echo_cpp(0), echo_cpp(1, stdin="hog"), echo_cpp(2), echo_cpp(3)])
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.CPU_TIME_LIMIT, Verdict.OK, Verdict.OK]
    assert [r.label for r in results if r.verdict is Verdict.OK] == ["0\n", "2\n", "3\n"]
    first, second = launcher.started
    assert len(first.jobs) == 3 and len(second.jobs) == 2  # job 2 was refused on the first: sent again
    assert launcher.released == [(first, True), (second, False)]


def test_one_source_in_several_settings_compiles_first_so_identical_binaries_run_once(
    tmp_path: Path,
) -> None:
    launcher = ScriptedLauncher(tmp_path, {"g++"})
    program = Program.single("cpp", HELLO_CPP)
    requests = [
        RunRequest(
            program=program, profile=get_profile("default"), setting=ExecutionSetting.from_surge_key(k)
        )
        for k in ("g++-C++11--O0", "g++-C++14--O0")
    ]
    with RunnerCore(launcher) as core:
        first, second = core.run_batch(requests)
    (runner,) = launcher.started
    assert [[phase["name"] for phase in job["phases"]] for job in runner.jobs] == [
        ["compile"],
        ["run"],
        ["compile"],
    ]
    assert first.run.detail == "" and "shared run of identical binary" in second.run.detail


def test_behind_a_long_program_the_next_waits_for_the_one_running_so_a_free_core_may_take_it(
    tmp_path: Path,
) -> None:
    """The program before the running one held its core long: the next is not queued behind the running
    one (a job queued in a runner can no longer be taken by a free core: pipeline/stealing.py)."""
    launcher = ScriptedLauncher(tmp_path, {"g++"})
    stdins = ["long 0\n", "long 1\n", "long 2\n", "3\n", "4\n", "5\n"]
    results = run_all(launcher, [echo_cpp(n, stdin=text) for n, text in enumerate(stdins)])
    assert [r.label for r in results] == stdins
    # 1 queued behind 0 (nothing known yet); 2, 3 and 4 each behind a program that followed a long one;
    # 5 behind 4, which followed the short 3
    assert launcher.started[0].unread_at_send == [0, 1, 0, 0, 0, 1]


def test_a_job_too_large_to_wait_in_the_pipe_is_written_only_once_the_runner_is_free(tmp_path: Path) -> None:
    launcher = ScriptedLauncher(tmp_path, {"g++"})
    large = "x" * (QUEUE_AHEAD_MAX_BYTES + 1)
    results = run_all(launcher, [echo_cpp(0), echo_cpp(1, stdin=large), echo_cpp(2)])
    assert [r.label for r in results] == ["0\n", large, "2\n"]
    assert launcher.started[0].unread_at_send == [0, 0, 0]


class OneRepeatFailsRunner(ScriptedRunner):
    """Its second repeat of every run fails on our side, as a runner that cannot fork does."""

    def answer(self, job: dict[str, Any]) -> dict[str, Any] | None:
        result = super().answer(job)
        for phase in result["phases"] if result else []:
            if phase["name"] == "run" and len(phase["runs"]) > 1:
                phase["runs"][1] |= {"status": "sandbox_error", "stdout": "", "detail": "fork: EAGAIN"}
        return result


class OneRepeatFailsLauncher(ScriptedLauncher):
    def acquire(self) -> ScriptedRunner:
        self.started.append(OneRepeatFailsRunner())
        return self.started[-1]


def test_a_repeat_we_failed_makes_the_result_ours_not_the_programs(tmp_path: Path) -> None:
    launcher = OneRepeatFailsLauncher(tmp_path, {"python3"})
    result = run(launcher, Program.single("python", "print('hi')"), repeats=3)
    # neither the first repeat's "ok" nor the program's non-determinism: a sandbox error, retried later
    assert result.verdict is Verdict.SANDBOX_ERROR and "fork: EAGAIN" in result.run.detail
    assert result.varied == ()


def test_a_phase_s_limits_reach_the_runner_as_the_record_holds_them() -> None:
    # The protocol spells the limits out (sandboxes/inner/protocol.py): a field the record gains and the
    # runner is not sent would be a limit silently dropped.
    from pipeline.records import Limits
    from sandboxes.jobs import phase_limits

    for limits in (Limits().compile, Limits().run):
        assert dict(phase_limits(limits)) == limits.model_dump()
