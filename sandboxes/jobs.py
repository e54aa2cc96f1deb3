"""Jobs for the in-sandbox runner (sandboxes/inner/runner.py speaks them), and its raw statuses as verdicts.

The runner core (sandboxes/core.py) decides what runs; this module says how a request becomes a job and a
job's result becomes phases:

- a ``Call`` is one job that answers one request, with the function that turns its result into the
  request's phases (and fills the compile cache and the run memo on the way);
- ``CompileStep`` is a compiled program's compile: its cache key, the compile-only job, and the *fused*
  job that compiles and, if that succeeded, runs in the same job (one round trip instead of two; the
  artifacts are hashed and exported between the two phases, before the program can touch them).
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pipeline.records import PhaseLimits as PhaseLimitsRecord
from pipeline.records import PhaseResult, RunRequest, Verdict, content_id
from sandboxes.compile_cache import cache_key
from sandboxes.inner.protocol import (
    Artifacts,
    Job,
    JobFile,
    JobResult,
    Phase,
    PhaseLimits,
    PhaseRuns,
    RawRun,
)
from sandboxes.languages import LanguageSpec
from sandboxes.profiles import sandbox_env
from sandboxes.warm_compile import seeded_cache_entry, warm_server_entry

# A compile phase the cache answered says so in its detail: its times are those of the compile that made it.
COMPILE_CACHE_HIT = "compile cache hit"

if TYPE_CHECKING:
    from sandboxes.core import PathMap, Place, Runner

RUNNER_GRACE_S = 30.0  # on top of the phases' own wall limits before the runner itself is presumed hung
# A run ended by a SIGKILL nothing of ours sent runs once more, to tell the program's own kill from an
# outsider's (runner.py, ``run_phase``): each run of a phase may take twice its wall limit.
WALL_LIMITS_PER_RUN = 2

# (the compile phase or None, the runs): what a request's jobs come to
Phases = tuple[PhaseResult | None, list[PhaseResult]]


def encode_job(job: Job) -> bytes:
    return json.dumps(job).encode("utf-8") + b"\n"


def exchange(runner: Runner, job: Job, timeout_s: float) -> JobResult:
    """Send one job and wait for its result, with the runner to ourselves."""
    runner.send(encode_job(job))
    return runner.receive(timeout_s)


@dataclass
class Call:
    """One runner job that answers one request; ``complete`` turns the job's result into its phases."""

    job: Job
    timeout_s: float
    complete: Callable[[JobResult], Phases]
    line: bytes = field(init=False)

    def __post_init__(self) -> None:
        self.line = encode_job(self.job)

    def perform(self, runner: Runner) -> Phases:
        """Send the job and wait for its result, with the runner to ourselves."""
        runner.send(self.line)
        return self.complete(runner.receive(self.timeout_s))


def source_key(request: RunRequest) -> str:
    """What decides a binary besides its setting: the language and the source files."""
    return content_id(request.program.language, [(f.path, f.content) for f in request.program.files])


def sources_used_once(requests: Sequence[RunRequest]) -> frozenset[str]:
    """The sources only one request of the batch has: no other can share their binary's run."""
    counts = Counter(source_key(request) for request in requests)
    return frozenset(key for key, count in counts.items() if count == 1)


def run_phase(request: RunRequest, spec: LanguageSpec, argv: list[str]) -> Phase:
    return {
        "name": "run",
        "argv": argv,
        "stdin": request.program.stdin,
        "repeat": request.repeats,
        "env": sandbox_env(request.profile, spec.run_env),
        "limits": phase_limits(request.limits.run),
        "memory_rlimit": spec.memory_rlimit,
    }


def run_call(
    runner: Runner,
    request: RunRequest,
    files: list[JobFile],
    run: Phase,
    then: Callable[[list[PhaseResult], list[RawRun]], Phases],
    reset: bool = True,
) -> Call:
    """The run phase `repeats` times; each raw run records the command as the sandbox sees it. ``then``
    gets the runs (as phases and raw) and gives the request's phases."""
    paths = runner.paths
    phase = placed_phase(paths, run)
    job: Job = {
        "id": request.run_id,
        "reset": reset,
        "workdir": paths.workdir,
        "files": files,
        "phases": [phase],
    }

    def complete(result: JobResult) -> Phases:
        raw = raw_runs(result["phases"][0], run["argv"])
        return then([to_phase(r, run_verdict(r)) for r in raw], raw)

    return Call(job, run_budget_s(request) + RUNNER_GRACE_S, complete)


def run_budget_s(request: RunRequest) -> float:
    """The longest the run phase's runs may take, confirmation runs included."""
    return request.limits.run.wall_s * request.repeats * WALL_LIMITS_PER_RUN


def phase_limits(limits: PhaseLimitsRecord) -> PhaseLimits:
    """A phase's limits as the runner reads them."""
    return {
        "cpu_s": limits.cpu_s,
        "wall_s": limits.wall_s,
        "memory_mib": limits.memory_mib,
        "processes": limits.processes,
        "output_bytes": limits.output_bytes,
        "file_size_bytes": limits.file_size_bytes,
    }


def placed_phase(paths: PathMap, phase: Phase) -> Phase:
    """A phase as the runner runs it: its /app paths and environment pointed at the runner's workdir."""
    return {**phase, "argv": paths.argv(phase["argv"]), "env": paths.env(phase["env"]), "cwd": paths.workdir}


def raw_runs(phase: PhaseRuns, argv: list[str]) -> list[RawRun]:
    runs = phase["runs"]
    for one in runs:
        one["argv"] = argv
    return runs


def memo_key(artifacts: Artifacts, run: Phase, repeats: int) -> str:
    """Runs of identical binaries are the same runs: the binary's digest, the run phase, the repeats."""
    return cache_key(artifacts.get("digest"), run, repeats)


def remember_runs(
    place: Place[Any],
    request: RunRequest,
    artifacts: Artifacts,
    run: Phase,
    raw: list[RawRun],
) -> None:
    """Keep a binary's runs for identical binaries; one that ended on a limit is this moment's, not the
    binary's: never shared."""
    if all(r["status"] in SHAREABLE_RUN_STATUSES for r in raw):
        place.memo.put(memo_key(artifacts, run, request.repeats), raw, source_key(request))


class CompileStep:
    """A compiled program's compile in one place and runner: its cache key and its jobs."""

    def __init__(
        self,
        backend: str,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any],
        runner: Runner,
        files: list[JobFile],
    ) -> None:
        self.request, self.spec, self.place, self.paths, self.files = (
            request,
            spec,
            place,
            runner.paths,
            files,
        )
        self.exports = runner.exports
        self.argv = spec.compile_argv(request.program, request.setting, request.profile)
        self.env = sandbox_env(request.profile, spec.compile_env)
        # The command as the sandbox runs it (unsafe-local rewrites /app) and the backend are part of the
        # key: a compile's diagnostics quote its paths, and one backend's compile is no other's.
        final = (self.paths.argv(self.argv), self.paths.env(self.env))
        self.key = cache_key(backend, files, place.tool_version(self.argv[0]), *final)
        self.timeout_s = request.limits.compile.wall_s * WALL_LIMITS_PER_RUN + RUNNER_GRACE_S

    def job(self, then: Phase | None = None) -> Job:
        """Compile in a fresh workspace; the artifacts come back (as files, or base64) for the cache.
        ``then``: a run phase in the same job, only if the compile succeeded."""
        compile_phase: Phase = {
            "name": "compile",
            "argv": self.argv,
            "env": self.env,
            "limits": phase_limits(self.request.limits.compile),
            "memory_rlimit": self.spec.memory_rlimit,
            "stop_unless_ok": True,
        }
        if self.spec.warm_compiler is not None:
            compile_phase["warm"] = warm_server_entry(self.spec.warm_compiler)
        if self.spec.seeded_cache is not None:
            compile_phase["seed"] = seeded_cache_entry(self.spec.seeded_cache)
        phases = [placed_phase(self.paths, phase) for phase in (compile_phase, then) if phase is not None]
        return {
            "id": self.request.run_id,
            "reset": True,
            "workdir": self.paths.workdir,
            "files": self.files,
            "phases": phases,
            "artifacts": list(self.spec.artifacts),
            "artifacts_after": "compile",
            "export": True,
        }

    def outcome(self, result: JobResult) -> tuple[PhaseResult, Artifacts]:
        """The compile phase and its artifacts, cached unless the compile ended on a limit or failed
        for a reason of ours."""
        compile_run = raw_runs(result["phases"][0], self.argv)[0]
        artifacts: Artifacts = {"digest": None, "files": []}
        if compile_run["status"] == "ok":
            artifacts = result["artifacts"]
        if compile_run["status"] in CACHEABLE_COMPILE_STATUSES:
            self.place.cache.put(self.key, compile_run, artifacts, self.exports)
        return to_phase(compile_run, compile_verdict(compile_run), "compiled"), artifacts

    def fused(self, run: Phase) -> Call:
        """Compile and run in one job: for a source no other request can share a run with."""

        def complete(result: JobResult) -> Phases:
            compile_phase, artifacts = self.outcome(result)
            if compile_phase.verdict is not Verdict.OK:
                return compile_phase, []
            raw = raw_runs(result["phases"][1], run["argv"])
            remember_runs(self.place, self.request, artifacts, run, raw)
            return compile_phase, [to_phase(r, run_verdict(r)) for r in raw]

        timeout_s = self.timeout_s + run_budget_s(self.request)
        return Call(self.job(then=run), timeout_s, complete)


# What the core decides for a request: one job, its phases already known, or its compile first.
Plan = Call | Phases | CompileStep


# -- what the core decides for one request ----------------------------------------------------------


def plan_request(
    backend: str, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner, alone: bool
) -> Plan:
    """The request as one runner job (a Call); answered without the runner (its phases: a cached
    compile error, a shared run); or its compile alone (a CompileStep), to look for a shared run of
    its binary before running it, because another request of the batch, or a run the memo holds, has
    the same source (``alone``: no other request of the batch has it). Never calls the runner: a job
    may be running there."""
    program = request.program
    files: list[JobFile] = [{"path": path, "text": text} for path, text in spec.placed_files(program)]
    if program.run_instruction or not spec.compiled:
        argv = ["sh", "-c", program.run_instruction] if program.run_instruction else None
        run = run_phase(request, spec, argv or spec.run_argv(program, request.setting, request.profile))
        return run_call(runner, request, files, run, lambda runs, raw: (None, runs))
    build = CompileStep(backend, request, spec, place, runner, files)
    cached = place.cache.get(build.key)
    if cached is None:
        if alone and not place.memo.has_source(source_key(request)):
            return build.fused(run_step(request, spec))
        return build
    compile_phase = to_phase(
        cached["compile"], compile_verdict(cached["compile"]), f"{COMPILE_CACHE_HIT} {build.key[:12]}"
    )
    if compile_phase.verdict is not Verdict.OK:
        return compile_phase, []
    artifacts = cached["artifacts"]
    restore: list[JobFile] = [
        {"path": a["path"], "b64": a["b64"], "mode": a["mode"]} for a in artifacts["files"]
    ]
    return run_binary(request, spec, place, runner, (compile_phase, artifacts), restore)


def carry_out(
    planned: Plan, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner
) -> Phases:
    """Do what ``plan_request`` decided for this runner, with the runner to ourselves."""
    if isinstance(planned, Call):
        return planned.perform(runner)
    if isinstance(planned, CompileStep):
        return compile_then_run(planned, request, spec, place, runner)
    return planned


def compile_then_run(
    build: CompileStep, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner
) -> Phases:
    """Two jobs: compile (into the cache), then run, unless an identical binary already ran."""
    compiled = build.outcome(exchange(runner, build.job(), build.timeout_s))
    if compiled[0].verdict is not Verdict.OK:
        return compiled[0], []
    planned = run_binary(request, spec, place, runner, compiled, None)
    return planned.perform(runner) if isinstance(planned, Call) else planned


def run_step(request: RunRequest, spec: LanguageSpec) -> Phase:
    """The run phase of a compiled program."""
    run_argv = spec.run_argv(request.program, request.setting, request.profile)
    if spec.heap_flag:  # the JVM sizes its heap from the host's RAM, not from our limit
        run_argv.insert(1, spec.heap_flag.format(max(16, request.limits.run.memory_mib // 2)))
    return run_phase(request, spec, run_argv)


def run_binary(
    request: RunRequest,
    spec: LanguageSpec,
    place: Place[Any],
    runner: Runner,
    compiled: tuple[PhaseResult, Artifacts],
    restore: list[JobFile] | None,
) -> Call | Phases:
    """Run a compiled binary (its compile phase and artifacts): the shared run of an identical
    binary, or a job (``restore``: the cached files into a fresh workspace; None: the compile left
    them in place)."""
    compile_phase, artifacts = compiled
    run = run_step(request, spec)
    shared = place.memo.get(memo_key(artifacts, run, request.repeats))
    if shared is not None:
        detail = f"shared run of identical binary {str(artifacts.get('digest'))[:12]}"
        return compile_phase, [to_phase(r, run_verdict(r), detail) for r in shared]

    def remember(runs: list[PhaseResult], raw: list[RawRun]) -> Phases:
        remember_runs(place, request, artifacts, run, raw)
        return compile_phase, runs

    return run_call(runner, request, restore or [], run, remember, reset=restore is not None)


# -- verdicts ------------------------------------------------------------------------------------------

STATUS_VERDICTS = {
    "ok": Verdict.OK,
    "runtime_error": Verdict.RUNTIME_ERROR,
    "signal": Verdict.SIGNAL,
    "cpu_time_limit": Verdict.CPU_TIME_LIMIT,
    "wall_time_limit": Verdict.WALL_TIME_LIMIT,
    "memory_limit": Verdict.MEMORY_LIMIT,
    "output_limit": Verdict.OUTPUT_LIMIT,
    "exec_failed": Verdict.RUNTIME_ERROR,
    "sandbox_error": Verdict.SANDBOX_ERROR,
}
# A compiler that ended by itself said something about the program; one that ended on a limit or a
# sandbox failure said something about this machine at that moment, and is compiled again next time.
CACHEABLE_COMPILE_STATUSES = frozenset({"ok", "runtime_error"})
SHAREABLE_RUN_STATUSES = frozenset({"ok", "runtime_error", "signal"})


def run_verdict(run: RawRun) -> Verdict:
    return STATUS_VERDICTS.get(run["status"], Verdict.SANDBOX_ERROR)


def compile_verdict(run: RawRun) -> Verdict:
    """ok; compile_error when the compiler refused (or crashed: an internal compiler error); a limit or
    sandbox error as itself, never as the program's compile error."""
    status = run["status"]
    if status == "exec_failed":
        return Verdict.TOOLCHAIN_MISSING
    if status in ("runtime_error", "signal"):
        return Verdict.COMPILE_ERROR
    return STATUS_VERDICTS.get(status, Verdict.SANDBOX_ERROR)


def failed(verdict: Verdict, detail: str) -> PhaseResult:
    """A phase that never ran: why, as a verdict and a detail."""
    return PhaseResult(verdict=verdict, detail=detail[:4000])


def to_phase(run: RawRun, verdict: Verdict, note: str = "") -> PhaseResult:
    """The raw facts of a run, as the runner reports them and a PhaseResult keeps them."""
    detail = "; ".join(part for part in (run.get("detail", ""), note) if part)
    return PhaseResult(
        command=tuple(run["argv"]),
        verdict=verdict,
        detail=detail,
        stdout=run["stdout"],
        stderr=run["stderr"],
        # a stream that is not valid UTF-8 comes with its bytes (older compile cache entries without)
        stdout_bytes=stream_bytes(run.get("stdout_b64")),
        stderr_bytes=stream_bytes(run.get("stderr_b64")),
        stdout_truncated=run["stdout_truncated"],
        stderr_truncated=run["stderr_truncated"],
        exit_code=run["exit_code"],
        signal=run["signal"],
        cpu_user_s=run["cpu_user_s"],
        cpu_sys_s=run["cpu_sys_s"],
        wall_s=run["wall_s"],
        setup_wall_s=run.get("setup_wall_s"),
        max_rss_kib=run["max_rss_kib"],
    )


def stream_bytes(b64: str | None) -> bytes | None:
    return base64.b64decode(b64) if b64 is not None else None
