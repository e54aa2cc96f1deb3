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
  different settings run once per place;
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

from pipeline.records import PhaseResult, Provenance, RunRequest, RunResult, Verdict
from sandboxes.compile_cache import CompileCache, RunMemo, cache_key
from sandboxes.languages import WORKDIR, LanguageSpec, spec_for
from sandboxes.profiles import SANDBOX_HOME, SANDBOX_PATH, sandbox_env

RUNNER_DIR = Path(__file__).resolve().parent / "inner"  # runner.py: what every backend starts
RUNNER_GRACE_S = 30.0  # on top of the phases' own wall limits before the runner itself is presumed hung


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
    """A started in-sandbox runner: one job in, its result out (SandboxCrash when it cannot answer)."""

    paths: PathMap

    def call(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]: ...

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
        if self.workers == 1 or len(requests) <= 1:
            for request in requests:
                yield self.run_one(request)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(self.run_one, requests)

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

    def run_one(self, request: RunRequest) -> RunResult:
        started = datetime.now(UTC)
        spec = spec_for(request.program.language)
        try:
            place = self.launcher.place(request)
        except Unplaceable as nowhere:
            return self.finish(request, spec, None, [failed(nowhere.verdict, nowhere.detail)], started)
        try:
            missing = [tool for tool in needed_tools(spec, request) if not place.has_tool(tool)]
            if missing:
                detail = f"`{missing[0]}` is not installed: {spec.install_hint(missing[0])}"
                return self.finish(request, spec, place, [failed(Verdict.TOOLCHAIN_MISSING, detail)], started)
            runner = place.acquire()
        except SandboxCrash as crash:  # a runner that would not start
            phase = failed(Verdict.SANDBOX_ERROR, f"{self.name}: {crash}")
            return self.finish(request, spec, place, [phase], started)
        try:
            compile_phase, runs = self.execute(request, spec, place, runner)
        except SandboxCrash as crash:
            place.release(runner, broken=True)
            return self.finish(request, spec, place, [failed(Verdict.SANDBOX_ERROR, str(crash))], started)
        place.release(runner, broken=False)
        return self.finish(request, spec, place, runs, started, compile_phase)

    def execute(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner
    ) -> tuple[PhaseResult | None, list[PhaseResult]]:
        program, setting, profile = request.program, request.setting, request.profile
        files = [{"path": path, "text": text} for path, text in spec.placed_files(program)]
        if program.run_instruction or not spec.compiled:
            argv = ["sh", "-c", program.run_instruction] if program.run_instruction else None
            run = run_phase(request, spec, argv or spec.run_argv(program, setting, profile))
            return None, [to_phase(r, run_verdict(r)) for r in run_job(runner, request, files, run)]
        compile_phase, artifacts, restore = self.compile(request, spec, place, runner, files)
        if compile_phase.verdict is not Verdict.OK:
            return compile_phase, []
        run_argv = spec.run_argv(program, setting, profile)
        if spec.heap_flag:  # the JVM sizes its heap from the host's RAM, not from our limit
            run_argv.insert(1, spec.heap_flag.format(max(16, request.limits.run.memory_mib // 2)))
        run = run_phase(request, spec, run_argv)
        memo_key = cache_key(artifacts.get("digest"), run, request.repeats)
        shared = place.memo.get(memo_key)
        if shared is not None:
            detail = f"shared run of identical binary {str(artifacts.get('digest'))[:12]}"
            return compile_phase, [to_phase(r, run_verdict(r), detail) for r in shared]
        runs = run_job(runner, request, restore or [], run, reset=restore is not None)
        # A run that ended on a limit is this moment's, not the binary's: never shared.
        if all(r["status"] in SHAREABLE_RUN_STATUSES for r in runs):
            place.memo.put(memo_key, runs)
        return compile_phase, [to_phase(r, run_verdict(r)) for r in runs]

    def compile(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any], runner: Runner, files: list[Any]
    ) -> tuple[PhaseResult, dict[str, Any], list[dict[str, Any]] | None]:
        """(compile phase, artifacts, files to restore): a fresh compile leaves its artifacts in the
        workspace (None to restore); a cached one brings them back for the run."""
        program, profile = request.program, request.profile
        compile_argv = spec.compile_argv(program, request.setting, profile)
        env = sandbox_env(profile)
        # The command as the sandbox runs it (unsafe-local rewrites /app) and the backend are part of the
        # key: a compile's diagnostics quote its paths, and one backend's compile is no other's.
        final = (runner.paths.argv(compile_argv), runner.paths.env(env))
        key = cache_key(self.name, files, place.tool_version(compile_argv[0]), *final)
        cached = place.cache.get(key)
        if cached is None:
            compile_run, artifacts = compile_job(runner, request, spec, files, compile_argv, env)
            if compile_run["status"] in CACHEABLE_COMPILE_STATUSES:
                place.cache.put(key, compile_run, artifacts)
            return to_phase(compile_run, compile_verdict(compile_run), "compiled"), artifacts, None
        artifacts = cached["artifacts"]
        restore = [
            {"path": a["path"], "b64": a["b64"], "mode": a["mode"]} for a in artifacts.get("files", [])
        ]
        phase = to_phase(
            cached["compile"], compile_verdict(cached["compile"]), f"compile cache hit {key[:12]}"
        )
        return phase, artifacts, restore

    def finish(
        self,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any] | None,
        runs: list[PhaseResult],
        started: datetime,
        compile_phase: PhaseResult | None = None,
    ) -> RunResult:
        run = runs[0] if runs else None
        verdict: Verdict
        if compile_phase is not None and compile_phase.verdict is not Verdict.OK:
            verdict = compile_phase.verdict
        else:
            verdict = run.verdict if run else Verdict.SANDBOX_ERROR
        tools = spec.tools(request.setting, request.profile)
        versions = {tool: (place.tool_version(tool) if place else None) or "missing" for tool in tools}
        return RunResult.answering(
            request,
            compile=compile_phase,
            run=run,
            verdict=verdict,
            protocol=request.program.protocol,
            repeats=max(1, len(runs)),
            distinct_outputs=max(1, len({r.stdout for r in runs})),
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


# -- jobs for the runner (sandboxes/inner/runner.py speaks these) ---------------------------------------


def needed_tools(spec: LanguageSpec, request: RunRequest) -> list[str]:
    return ["sh"] if request.program.run_instruction else spec.tools(request.setting, request.profile)


def compile_job(
    runner: Runner,
    request: RunRequest,
    spec: LanguageSpec,
    files: list[dict[str, Any]],
    argv: list[str],
    env: dict[str, str],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compile in a fresh workspace; the artifacts come back (base64) for the cache."""
    paths = runner.paths
    phase = {
        "name": "compile",
        "argv": paths.argv(argv),
        "env": paths.env(env),
        "limits": request.limits.compile.model_dump(),
        "memory_rlimit": spec.memory_rlimit,
        "cwd": paths.workdir,
    }
    job = {
        "id": request.run_id,
        "reset": True,
        "workdir": paths.workdir,
        "files": files,
        "phases": [phase],
        "artifacts": list(spec.artifacts),
        "export": True,
    }
    result = runner.call(job, timeout_s=request.limits.compile.wall_s + RUNNER_GRACE_S)
    compile_run: dict[str, Any] = result["phases"][0]["runs"][0]
    compile_run["argv"] = argv  # record the command as the sandbox sees it
    artifacts = result["artifacts"] if compile_run["status"] == "ok" else {"digest": None, "files": []}
    return compile_run, artifacts


def run_phase(request: RunRequest, spec: LanguageSpec, argv: list[str]) -> dict[str, Any]:
    return {
        "name": "run",
        "argv": argv,
        "stdin": request.program.stdin,
        "repeat": request.repeats,
        "env": sandbox_env(request.profile, spec.run_env),
        "limits": request.limits.run.model_dump(),
        "memory_rlimit": spec.memory_rlimit,
    }


def run_job(
    runner: Runner, request: RunRequest, files: list[dict[str, Any]], run: dict[str, Any], reset: bool = True
) -> list[dict[str, Any]]:
    """The run phase `repeats` times; each raw run records the command as the sandbox sees it."""
    paths = runner.paths
    phase = {**run, "argv": paths.argv(run["argv"]), "env": paths.env(run["env"]), "cwd": paths.workdir}
    job = {"id": request.run_id, "reset": reset, "workdir": paths.workdir, "files": files, "phases": [phase]}
    timeout_s = request.limits.run.wall_s * request.repeats + RUNNER_GRACE_S
    runs: list[dict[str, Any]] = runner.call(job, timeout_s)["phases"][0]["runs"]
    for one in runs:
        one["argv"] = run["argv"]
    return runs


def runner_env() -> dict[str, str]:
    """The runner's own environment (each program gets its profile's, sandboxes/profiles.py)."""
    return {"PATH": SANDBOX_PATH, "HOME": SANDBOX_HOME, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


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


def run_verdict(run: dict[str, Any]) -> Verdict:
    return STATUS_VERDICTS.get(run["status"], Verdict.SANDBOX_ERROR)


def compile_verdict(run: dict[str, Any]) -> Verdict:
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


def to_phase(run: dict[str, Any], verdict: Verdict, note: str = "") -> PhaseResult:
    detail = "; ".join(part for part in (run.get("detail", ""), note) if part)
    return PhaseResult(
        command=tuple(run["argv"]),
        stdout=run["stdout"],
        stderr=run["stderr"],
        stdout_truncated=run["stdout_truncated"],
        stderr_truncated=run["stderr_truncated"],
        exit_code=run["exit_code"],
        signal=run["signal"],
        cpu_user_s=run["cpu_user_s"],
        cpu_sys_s=run["cpu_sys_s"],
        wall_s=run["wall_s"],
        max_rss_kib=run["max_rss_kib"],
        verdict=verdict,
        detail=detail,
    )


def pipeline_version() -> str:
    try:
        from importlib.metadata import version

        return version("surge-pipeline")
    except Exception:  # not installed (running from a checkout)
        return "0+unknown"
