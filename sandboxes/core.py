"""The runner core: compile -> run -> verdict over the in-sandbox runner, with its caches, written once.

A backend is one method (sandboxes/backends/base.py); this is a helper a backend may be built with, as
bwrap and Docker are: ``RunnerCore(launcher, workers)`` is such a backend. Its launcher says only how the
in-sandbox runner (sandboxes/inner/runner.py, JSON lines in and out) is started and where its paths are:
for each request the core asks the launcher for a `Place`, the runners to use, which tools exist there
(and their versions), the compile cache and the run memo that belong there, and the image digest for
provenance. Everything else is here:

- a tool the request needs is missing -> ``toolchain_missing``, naming the tool and how to install it;
- interpreted programs and run instructions are one job of `repeats` runs;
- compiled programs go through the compile cache (sandboxes/compile_cache.py: key = backend, files,
  compiler version, the final argv and environment), then the run memo: identical binaries from
  different settings run once per place. A source no other request shares compiles and runs in one job
  (sandboxes/jobs.py: how requests become jobs);
- one driver (``Driver``) runs every request: with one worker, the next job is written while one runs,
  where the runner allows it;
- the runner's raw statuses become verdicts (`STATUS_VERDICTS`, `compile_verdict`), and the phases a
  RunResult with provenance. The label is not composed here: `RunResult.label` derives it afterwards.

A runner that dies or hangs (`SandboxCrash`) costs its program a ``sandbox_error`` and is replaced; the
core never raises for a program's behaviour (sandboxes/backends/base.py).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

from pipeline.records import (
    AGREED,
    PhaseResult,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
    compare_repeats,
)
from pipeline.stealing import starting
from pipeline.stopping import check_not_stopping
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.inner.protocol import JobResult
from sandboxes.jobs import Call, Plan, carry_out, failed, plan_request, source_key, sources_used_once
from sandboxes.languages import WORKDIR, LanguageSpec, spec_for
from sandboxes.profiles import SANDBOX_HOME, SANDBOX_PATH

RUNNER_DIR = Path(__file__).resolve().parent / "inner"  # runner.py: what every backend starts


class SandboxCrash(Exception):
    """The runner died, hung or would not start: the current program gets SANDBOX_ERROR, the next a new
    runner."""


class RunnerSpent(SandboxCrash):
    """The runner refused a job unrun: a program before it may have spoilt its sandbox, which is replaced.
    The job was written before that was known (queued ahead); it runs again on a fresh runner."""


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
    answer). Its place starts and closes it (``acquire``, ``release``)."""

    paths: PathMap
    # The host folder the runner writes exported artifacts to (files named by their sha256), or None:
    # they come back as base64 in the result line.
    exports: Path | None

    # May the next job be written while one runs? Only where nothing a program does reaches the next
    # job (bwrap: a reset workspace, the sandbox uid's processes killed after every phase), or where the
    # runner refuses what was queued behind a program that spoilt its sandbox (RunnerSpent: a Docker
    # container, replaced after such a program). False: given back after every program.
    @property
    def queue_ahead(self) -> bool: ...

    def send(self, line: bytes) -> None:
        """Write one encoded job (``encode_job``)."""
        ...

    def receive(self, timeout_s: float) -> JobResult:
        """The next result, in the order the jobs were sent."""
        ...


R = TypeVar("R", bound=Runner)


class Keepable(Protocol):
    """A runner a backend may keep warm after its batch (``WarmRunners``)."""

    def alive(self) -> bool:
        """Whether it can still take a job (it has not died while idle)."""
        ...

    def close(self) -> None: ...


K = TypeVar("K", bound=Keepable)


class WarmRunners(Generic[K]):
    """Runners that outlive their backend, for the next backend of this process that starts them the same
    way (``key``): a job opens one backend per batch, and each batch used to start its runners afresh.

    Nothing passes from one batch to the next that would not pass between two programs of one batch:
    every job resets /app and /tmp, and every phase ends with the sandbox uid's processes killed; a runner
    a program may have spoilt is never given back. At most ``keep`` idle runners are kept (the oldest
    closes first), so a process that opens many backends holds few uids or containers."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.idle: list[tuple[tuple[str, ...], K]] = []
        self.lock = threading.Lock()

    def take(self, key: tuple[str, ...]) -> K | None:
        with self.lock:
            index = next((n for n, (its_key, _) in enumerate(self.idle) if its_key == key), None)
            if index is None:
                return None
            _, runner = self.idle.pop(index)
        if runner.alive():
            return runner
        runner.close()  # it died while idle
        return None

    def give(self, key: tuple[str, ...], runner: K) -> None:
        with self.lock:
            self.idle.append((key, runner))
            evicted = self.idle[: -self.keep]
            del self.idle[: -self.keep]
        for _, old in evicted:
            old.close()

    def forget(self) -> None:
        """Drop every idle runner without closing it, in a forked child: they are its parent's, and so
        may be the lock (another thread may have held it at the fork)."""
        self.idle = []
        self.lock = threading.Lock()


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
    """A backend (sandboxes/backends/base.py) over a launcher; see the module docstring."""

    asks_before_starting = True  # each program, through its Driver (pipeline/stealing.py ``starting``)

    def __init__(self, launcher: L, workers: int = 1) -> None:
        self.launcher = launcher
        self.name = launcher.name
        self.workers = max(1, workers)
        self.host = socket.gethostname()
        self.pipeline_version = pipeline_version()
        self.closed = False

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        """The results in request order. One worker: one driver over the whole batch (its runner held,
        the next job written while one runs); several: a driver per request, ``workers`` at a time."""
        alone = sources_used_once(requests)
        if self.workers == 1 or len(requests) <= 1:
            yield from Driver(self, alone).run(requests)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(lambda request: Driver(self, alone).run_alone(request), requests)

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

    def crashed(
        self, request: RunRequest, spec: LanguageSpec, place: Place[Any] | None, started: datetime, why: str
    ) -> RunResult:
        check_not_stopping()  # the runner was killed by the user's interrupt: no sandbox error of ours
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
        repeats = AGREED if ours else compare_repeats(request.program.protocol, compile_phase, runs)
        tools = spec.tools(request.setting, request.profile)
        versions = {tool: (place.tool_version(tool) if place else None) or "missing" for tool in tools}
        return RunResult.answering(
            request,
            compile=compile_phase,
            run=run,
            verdict=verdict,
            protocol=request.program.protocol,
            repeats=max(1, len(runs)),
            distinct_outputs=repeats.distinct,
            varied=repeats.varied,
            other_runs=repeats.others,
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


# A queued job waits in the runner's stdin pipe (64 KiB on Linux) while the runner writes the previous
# result: a larger one could block us on the write while the runner blocks on its result. Such jobs (a
# large stdin, say) go one at a time.
QUEUE_AHEAD_MAX_BYTES = 32 << 10
# A job queued ahead is this runner's: no free core can take it (pipeline/stealing.py). Behind a program
# that held its core this long (the one before it, as a guess for the one running: a fed batch runs its
# longest first), the next job waits until the running one ends. The few ms of the host's work this
# saves are nothing beside such a program, and an audit's last long programs, queued one behind another
# on one core, ran there in turn while the other core idled (~1 s of a 20-s audit).
QUEUE_AHEAD_BEHIND_S = 0.5


@dataclass
class Ahead:
    """A request whose job is written to the held runner and whose result is not read yet."""

    request: RunRequest
    spec: LanguageSpec
    place: Place[Any]
    started: datetime
    call: Call


class Driver:
    """The one way a request runs: one worker's requests in order, one job ahead. Where the runner takes
    it (``Runner.queue_ahead``), each program's job is written while the previous one runs, and the
    previous result is read after: the runner never waits for the host between programs. The host's work
    per program (a few ms, more while the engine's threads hold the GIL) was a core left idle each time.
    Results come back in request order; a runner that breaks costs the job it was running a
    sandbox_error, and the job queued behind it runs again on a fresh runner, as does a job the runner
    refused unrun (RunnerSpent)."""

    def __init__(self, core: RunnerCore[Any], alone: frozenset[str]) -> None:
        self.core = core
        self.alone = alone
        self.held: tuple[Place[Any], Runner] | None = None
        self.ahead: Ahead | None = None
        self.last_held_s = 0.0  # the wall time the last result landed held its core

    def run_alone(self, request: RunRequest) -> RunResult:
        """One request, its runner given back after it (a worker of several)."""
        (result,) = self.run([request])
        return result

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        try:
            for request in requests:
                yield from self.one(request)
            yield from self.land()
        finally:  # stopped early with a job ahead: its unread result would answer the runner's next user
            self.let_go(broken=self.ahead is not None)

    def one(self, request: RunRequest) -> Iterator[RunResult]:
        check_not_stopping()
        if self.ahead is not None and self.last_held_s >= QUEUE_AHEAD_BEHIND_S:
            yield from self.land()  # behind a long one, not committed yet: a free core may take it
        if not starting(request.run_id):  # the flow took it for a free slot (pipeline/stealing.py)
            return
        core, started = self.core, datetime.now(UTC)
        spec = spec_for(request.program.language)
        place, answered = core.locate(request, spec, started)
        if answered is not None:
            yield from self.land()
            yield answered
            return
        assert place is not None
        if self.held is None or self.held[0] is not place:
            yield from self.land()
            self.let_go(broken=False)
        try:
            runner = self.hold(place)
        except SandboxCrash as crash:  # a runner that would not start
            yield core.crashed(request, spec, place, started, f"{core.name}: {crash}")
            return
        planned = plan_request(core.name, request, spec, place, runner, source_key(request) in self.alone)
        if isinstance(planned, Call) and runner.queue_ahead and len(planned.line) <= QUEUE_AHEAD_MAX_BYTES:
            yield from self.queue(Ahead(request, spec, place, started, planned), runner)
            return
        yield from self.land()
        yield self.run_now(request, spec, place, started, planned=(runner, planned))

    def queue(self, job: Ahead, runner: Runner) -> Iterator[RunResult]:
        try:
            runner.send(job.call.line)
        except SandboxCrash:  # the runner is gone: the job ahead ends with it, this one runs again
            yield from self.land()
            self.let_go(broken=True)
            yield self.run_now(job.request, job.spec, job.place, job.started)
            return
        previous, self.ahead = self.ahead, job
        if previous is not None and not (yield from self.read(previous)):
            self.ahead = None  # it was queued behind the job that broke the runner: never ran
            yield self.run_now(job.request, job.spec, job.place, job.started)

    def land(self) -> Iterator[RunResult]:
        """Read the result of the job ahead, if any."""
        job, self.ahead = self.ahead, None
        if job is not None:
            yield from self.read(job)

    def read(self, job: Ahead) -> Generator[RunResult, None, bool]:
        """Yield the job's result; False when the runner broke on it (and was let go)."""
        assert self.held is not None
        try:
            result = self.held[1].receive(job.call.timeout_s)
            if self.ahead is not None:  # the job queued behind this one starts now
                self.ahead.started = datetime.now(UTC)
            compile_phase, runs = job.call.complete(result)
        except RunnerSpent:  # never ran: again, on a fresh runner (the one queued behind it too)
            self.let_go(broken=True)
            yield self.run_now(job.request, job.spec, job.place, job.started)
            return False
        except SandboxCrash as crash:
            self.let_go(broken=True)
            yield self.core.crashed(job.request, job.spec, job.place, job.started, str(crash))
            return False
        yield self.landed(
            self.core.finish(job.request, job.spec, job.place, runs, job.started, compile_phase)
        )
        return True

    def landed(self, result: RunResult) -> RunResult:
        self.last_held_s = result.held_s
        return result

    def run_now(
        self,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any],
        started: datetime,
        planned: tuple[Runner, Plan] | None = None,
        refused: bool = False,
    ) -> RunResult:
        """The request with the runner to itself (nothing ahead); ``planned``: its plan for a runner,
        used if that runner is still the one held (a job's paths are its runner's). A job the runner
        refused runs again on a fresh one (``refused``: this is that second time)."""
        try:
            runner = self.hold(place)
        except SandboxCrash as crash:
            return self.core.crashed(request, spec, place, started, f"{self.core.name}: {crash}")
        try:
            if planned is None or planned[0] is not runner:
                alone = source_key(request) in self.alone
                planned = runner, plan_request(self.core.name, request, spec, place, runner, alone)
            compile_phase, runs = carry_out(planned[1], request, spec, place, runner)
        except RunnerSpent as crash:
            self.let_go(broken=True)
            if refused:  # a fresh runner refused it too: ours
                return self.core.crashed(request, spec, place, started, str(crash))
            return self.run_now(request, spec, place, started, refused=True)
        except SandboxCrash as crash:
            self.let_go(broken=True)
            return self.core.crashed(request, spec, place, started, str(crash))
        if not runner.queue_ahead:  # given back after every program (Docker recycles its containers)
            self.let_go(broken=False)
        return self.landed(self.core.finish(request, spec, place, runs, started, compile_phase))

    def hold(self, place: Place[Any]) -> Runner:
        """The runner held for this place, acquired if none is (SandboxCrash: it would not start)."""
        if self.held is None:
            self.held = (place, place.acquire())
        return self.held[1]

    def let_go(self, broken: bool) -> None:
        if self.held is not None:
            place, runner = self.held
            self.held = None
            place.release(runner, broken=broken)


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
