"""The runner core: compile -> run -> verdict for every sandbox backend, with its caches, written once.

A backend (sandboxes/backends/<name>.py) is only a `Launcher`: how the in-sandbox runner
(sandboxes/inner/runner.py, JSON lines in and out) is started and where its paths are. For each request
the core asks the launcher for a `Place`: the runners to use, which tools exist there (and their
versions), the compile cache and the run memo that belong there, and the image digest for provenance.
Everything else is here:

- a tool the request needs is missing -> ``toolchain_missing``, naming the tool and how to install it;
- interpreted programs and run instructions are one job of `repeats` runs;
- compiled programs go through the compile cache (sandboxes/compile_cache.py: key = backend, files,
  compiler version, the final argv and environment), then the run memo: identical binaries from
  different settings run once per place. A source no other request shares compiles and runs in one job
  (sandboxes/jobs.py: how requests become jobs);
- with one worker, the next job is written while one runs (sandboxes/in_order.py), where the runner allows it;
- the runner's raw statuses become verdicts (`STATUS_VERDICTS`, `compile_verdict`), and the phases a
  RunResult with provenance. The label is not composed here: `RunResult.label` derives it afterwards.

A runner that dies or hangs (`SandboxCrash`) costs its program a ``sandbox_error`` and is replaced; a
backend never raises for a program's behaviour (sandboxes/backends/base.py).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

from pipeline.records import PhaseResult, Provenance, RunRequest, RunResult, Verdict, compare_repeats
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.jobs import (
    Call,
    CompileStep,
    Phases,
    Plan,
    compile_verdict,
    failed,
    memo_key,
    remember_runs,
    run_call,
    run_phase,
    run_verdict,
    source_key,
    sources_used_once,
    to_phase,
)
from sandboxes.languages import WORKDIR, LanguageSpec, spec_for
from sandboxes.profiles import SANDBOX_HOME, SANDBOX_PATH

RUNNER_DIR = Path(__file__).resolve().parent / "inner"  # runner.py: what every backend starts


class SandboxCrash(Exception):
    """The runner died, hung or would not start: the current program gets SANDBOX_ERROR, the next a new
    runner."""


class Unplaceable(Exception):
    """The request cannot run in this backend at all (its image is not built): the result is `verdict`."""

    def __init__(self, verdict: Verdict, detail: str) -> None:
        super().__init__(detail)
        self.verdict = verdict
        self.detail = detail


@dataclass(frozen=True)
class PathMap:
    """Where the sandbox's /app and /tmp are for one runner: themselves, or unsafe-local's scratch folder."""

    scratch: Path | None = None

    @property
    def workdir(self) -> str:
        return str(self.scratch / "app") if self.scratch else WORKDIR

    def argv(self, argv: list[str]) -> list[str]:
        """Point a spec's /app paths at the runner's workdir."""
        if self.scratch is None:
            return argv
        return [self.workdir + arg[len(WORKDIR) :] if arg.startswith(WORKDIR) else arg for arg in argv]

    def env(self, env: dict[str, str]) -> dict[str, str]:
        if self.scratch is None:
            return env
        tmp = str(self.scratch / "tmp")
        return {**env, "HOME": tmp + "/home", "TMPDIR": tmp}


class Runner(Protocol):
    """A started in-sandbox runner: jobs in, their results out in order (SandboxCrash when it cannot
    answer). ``call`` is ``send`` then ``receive``."""

    paths: PathMap
    # May the next job be written while one runs? Only where nothing a program does reaches the next
    # job (bwrap: a reset workspace, the sandbox uid's processes killed after every phase). A Docker
    # container may be contaminated by a program and is then replaced before the next one: no.
    queue_ahead: bool

    def call(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]: ...

    def send(self, line: bytes) -> None:
        """Write one encoded job (``encode_job``)."""
        ...

    def receive(self, timeout_s: float) -> dict[str, Any]:
        """The next result, in the order the jobs were sent."""
        ...

    def close(self) -> None: ...


R = TypeVar("R", bound=Runner)


class Place(Protocol[R]):
    """Where one request runs: what a launcher answers the core for each request."""

    cache: CompileCache  # compiled artifacts belong to the toolchain they came from
    memo: RunMemo  # runs of identical binaries, shared within the place
    image_digest: str | None  # provenance: the image the programs ran in, if any

    def has_tool(self, tool: str) -> bool:
        """Is the tool there (may start a runner to look: SandboxCrash)."""
        ...

    def tool_version(self, tool: str) -> str | None:
        """The version line of a tool, None when absent or not looked at (never starts a runner)."""
        ...

    def acquire(self) -> R: ...

    def release(self, runner: R, broken: bool) -> None:
        """Give a runner back after a program; `broken`: it crashed, replace it."""
        ...


class Launcher(Protocol):
    name: str  # recorded in Provenance.backend and part of every compile cache key

    def place(self, request: RunRequest) -> Place[Any]:
        """Where the request runs, or Unplaceable."""
        ...

    def close(self) -> None: ...


L = TypeVar("L", bound=Launcher)


class RunnerCore(Generic[L]):
    """The Backend protocol (sandboxes/backends/base.py) over a launcher; see the module docstring."""

    def __init__(self, launcher: L, workers: int = 1) -> None:
        self.launcher = launcher
        self.name = launcher.name
        self.workers = max(1, workers)
        self.host = socket.gethostname()
        self.pipeline_version = pipeline_version()
        self.closed = False

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        from sandboxes.in_order import InOrder  # it drives this core

        alone = sources_used_once(requests)
        if self.workers == 1 or len(requests) <= 1:
            yield from InOrder(self, alone).run(requests)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(lambda request: self.run_one(request, alone), requests)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.launcher.close()

    def __enter__(self) -> RunnerCore[L]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- one request ---------------------------------------------------------------------------

    def run_one(self, request: RunRequest, alone: frozenset[str] = frozenset()) -> RunResult:
        started = datetime.now(UTC)
        spec = spec_for(request.program.language)
        place, answered = self.locate(request, spec, started)
        if answered is not None:
            return answered
        assert place is not None
        try:
            runner = place.acquire()
        except SandboxCrash as crash:  # a runner that would not start
            return self.crashed(request, spec, place, started, f"{self.name}: {crash}")
        try:
            compile_phase, runs = self.execute(request, spec, place, runner, source_key(request) in alone)
        except SandboxCrash as crash:
            place.release(runner, broken=True)
            return self.crashed(request, spec, place, started, str(crash))
        place.release(runner, broken=False)
        return self.finish(request, spec, place, runs, started, compile_phase)

    def locate(
        self, request: RunRequest, spec: LanguageSpec, started: datetime
    ) -> tuple[Place[Any] | None, RunResult | None]:
        """(where the request runs, None), or (place or None, its result) when it cannot run: no place
        for it, a tool it needs is missing, or looking for one needed a runner that would not start."""
        try:
            place = self.launcher.place(request)
        except Unplaceable as nowhere:
            return None, self.finish(request, spec, None, [failed(nowhere.verdict, nowhere.detail)], started)
        try:
            missing = [tool for tool in needed_tools(spec, request) if not place.has_tool(tool)]
        except SandboxCrash as crash:
            return place, self.crashed(request, spec, place, started, f"{self.name}: {crash}")
        if not missing:
            return place, None
        detail = f"`{missing[0]}` is not installed: {spec.install_hint(missing[0])}"
        return place, self.finish(request, spec, place, [failed(Verdict.TOOLCHAIN_MISSING, detail)], started)

    def execute(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner, alone: bool
    ) -> Phases:
        """Compile (through the cache) and run, with the runner to ourselves."""
        return self.carry_out(self.plan(request, spec, place, runner, alone), request, spec, place, runner)

    def carry_out(
        self, planned: Plan, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner
    ) -> Phases:
        """Do what ``plan`` decided for this runner, with the runner to ourselves."""
        if isinstance(planned, Call):
            return planned.perform(runner)
        if isinstance(planned, CompileStep):
            return self.compile_then_run(planned, request, spec, place, runner)
        return planned

    def plan(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner, alone: bool
    ) -> Plan:
        """The request as one runner job (a Call); answered without the runner (its phases: a cached
        compile error, a shared run); or its compile alone (a CompileStep), to look for a shared run of
        its binary before running it, because another request of the batch, or a run the memo holds, has
        the same source (``alone``: no other request of the batch has it). Never calls the runner: a job
        may be running there."""
        program = request.program
        files = [{"path": path, "text": text} for path, text in spec.placed_files(program)]
        if program.run_instruction or not spec.compiled:
            argv = ["sh", "-c", program.run_instruction] if program.run_instruction else None
            run = run_phase(request, spec, argv or spec.run_argv(program, request.setting, request.profile))
            return run_call(runner, request, files, run, lambda runs, raw: (None, runs))
        build = CompileStep(self.name, request, spec, place, runner, files)
        cached = place.cache.get(build.key)
        if cached is None:
            if alone and not place.memo.has_source(source_key(request)):
                return build.fused(self.run_step(request, spec))
            return build
        compile_phase = to_phase(
            cached["compile"], compile_verdict(cached["compile"]), f"compile cache hit {build.key[:12]}"
        )
        if compile_phase.verdict is not Verdict.OK:
            return compile_phase, []
        artifacts = cached["artifacts"]
        restore = [
            {"path": a["path"], "b64": a["b64"], "mode": a["mode"]} for a in artifacts.get("files", [])
        ]
        return self.run_binary(request, spec, place, runner, (compile_phase, artifacts), restore)

    def compile_then_run(
        self, build: CompileStep, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner
    ) -> Phases:
        """Two jobs: compile (into the cache), then run, unless an identical binary already ran."""
        compiled = build.outcome(runner.call(build.job(), build.timeout_s))
        if compiled[0].verdict is not Verdict.OK:
            return compiled[0], []
        planned = self.run_binary(request, spec, place, runner, compiled, None)
        return planned.perform(runner) if isinstance(planned, Call) else planned

    def run_step(self, request: RunRequest, spec: LanguageSpec) -> dict[str, Any]:
        """The run phase of a compiled program."""
        run_argv = spec.run_argv(request.program, request.setting, request.profile)
        if spec.heap_flag:  # the JVM sizes its heap from the host's RAM, not from our limit
            run_argv.insert(1, spec.heap_flag.format(max(16, request.limits.run.memory_mib // 2)))
        return run_phase(request, spec, run_argv)

    def run_binary(
        self,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any],
        runner: Runner,
        compiled: tuple[PhaseResult, dict[str, Any]],
        restore: list[dict[str, Any]] | None,
    ) -> Call | Phases:
        """Run a compiled binary (its compile phase and artifacts): the shared run of an identical
        binary, or a job (``restore``: the cached files into a fresh workspace; None: the compile left
        them in place)."""
        compile_phase, artifacts = compiled
        run = self.run_step(request, spec)
        shared = place.memo.get(memo_key(artifacts, run, request.repeats))
        if shared is not None:
            detail = f"shared run of identical binary {str(artifacts.get('digest'))[:12]}"
            return compile_phase, [to_phase(r, run_verdict(r), detail) for r in shared]

        def remember(runs: list[PhaseResult], raw: list[dict[str, Any]]) -> Phases:
            remember_runs(place, request, artifacts, run, raw)
            return compile_phase, runs

        return run_call(runner, request, restore or [], run, remember, reset=restore is not None)

    def crashed(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any] | None, started: datetime, why: str
    ) -> RunResult:
        return self.finish(request, spec, place, [failed(Verdict.SANDBOX_ERROR, why)], started)

    def finish(
        self,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any] | None,
        runs: list[PhaseResult],
        started: datetime,
        compile_phase: PhaseResult | None = None,
    ) -> RunResult:
        # A repeat we failed makes the whole result ours (quarantined, retried), never the program's first
        # repeat nor its non-determinism. Otherwise every repeat is compared over what the row claims
        # (composed label, exit status, signal, verdict); the row keeps the first repeat's phase and
        # verdict and says what varied.
        ours = next((r for r in runs if r.verdict is Verdict.SANDBOX_ERROR), None)
        run = ours or (runs[0] if runs else None)
        verdict: Verdict
        if compile_phase is not None and compile_phase.verdict is not Verdict.OK:
            verdict = compile_phase.verdict
        else:
            verdict = run.verdict if run else Verdict.SANDBOX_ERROR
        distinct, varied = (1, ()) if ours else compare_repeats(request.program.protocol, compile_phase, runs)
        tools = spec.tools(request.setting, request.profile)
        versions = {tool: (place.tool_version(tool) if place else None) or "missing" for tool in tools}
        return RunResult.answering(
            request,
            compile=compile_phase,
            run=run,
            verdict=verdict,
            protocol=request.program.protocol,
            repeats=max(1, len(runs)),
            distinct_outputs=distinct,
            varied=varied,
            origin=dict(request.program.origin),
            provenance=Provenance(
                backend=self.name,
                profile=request.profile.name,
                toolchain_versions=versions,
                image_digest=place.image_digest if place else None,
                limits=request.limits,
                host=self.host,
                started_at=started,
                pipeline_version=self.pipeline_version,
            ),
        )


def needed_tools(spec: LanguageSpec, request: RunRequest) -> list[str]:
    return ["sh"] if request.program.run_instruction else spec.tools(request.setting, request.profile)


def runner_env() -> dict[str, str]:
    """The runner's own environment (each program gets its profile's, sandboxes/profiles.py)."""
    return {"PATH": SANDBOX_PATH, "HOME": SANDBOX_HOME, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


def pipeline_version() -> str:
    try:
        from importlib.metadata import version

        return version("surge-pipeline")
    except Exception:  # not installed (running from a checkout)
        return "0+unknown"
