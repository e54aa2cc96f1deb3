"""One worker's requests in order, one job ahead (the runner core's way to run a batch with one worker).

Where the runner takes it (``Runner.queue_ahead``: bwrap), each program's job is written while the
previous one runs and the previous result is read after, so the runner never waits for the host between
programs (docs/sandboxes.md, "How a request becomes jobs").
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pipeline.records import RunRequest, RunResult
from sandboxes.core import Place, Runner, RunnerCore, SandboxCrash
from sandboxes.jobs import Call, Plan, source_key
from sandboxes.languages import LanguageSpec, spec_for

# A queued job waits in the runner's stdin pipe (64 KiB on Linux) while the runner writes the previous
# result: a larger one could block us on the write while the runner blocks on its result. Such jobs (a
# large stdin, say) go one at a time.
QUEUE_AHEAD_MAX_BYTES = 32 << 10


@dataclass
class Ahead:
    """A request whose job is written to the held runner and whose result is not read yet."""

    request: RunRequest
    spec: LanguageSpec
    place: Place[Any]
    started: datetime
    call: Call


class InOrder:
    """One worker's requests in order, one job ahead. Where the runner takes it (``Runner.queue_ahead``),
    each program's job is written while the previous one runs, and the previous result is read after:
    the runner never waits for the host between programs. The host's work per program (a few ms, more
    while the engine's threads hold the GIL) was a core left idle each time (issue 10). Results come
    back in request order; a runner that breaks costs the job it was running a sandbox_error, and the
    job queued behind it runs again on a fresh runner."""

    def __init__(self, core: RunnerCore[Any], alone: frozenset[str]) -> None:
        self.core = core
        self.alone = alone
        self.held: tuple[Place[Any], Runner] | None = None
        self.ahead: Ahead | None = None

    def run(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        try:
            for request in requests:
                yield from self.one(request)
            yield from self.land()
        finally:  # stopped early with a job ahead: its unread result would answer the runner's next user
            self.let_go(broken=self.ahead is not None)

    def one(self, request: RunRequest) -> Iterator[RunResult]:
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
        planned = core.plan(request, spec, place, runner, source_key(request) in self.alone)
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
        except SandboxCrash as crash:
            self.let_go(broken=True)
            yield self.core.crashed(job.request, job.spec, job.place, job.started, str(crash))
            return False
        yield self.core.finish(job.request, job.spec, job.place, runs, job.started, compile_phase)
        return True

    def run_now(
        self,
        request: RunRequest,
        spec: LanguageSpec,
        place: Place[Any],
        started: datetime,
        planned: tuple[Runner, Plan] | None = None,
    ) -> RunResult:
        """The request with the runner to itself (nothing ahead); ``planned``: its plan for a runner,
        used if that runner is still the one held (a job's paths are its runner's)."""
        try:
            runner = self.hold(place)
        except SandboxCrash as crash:
            return self.core.crashed(request, spec, place, started, f"{self.core.name}: {crash}")
        try:
            if planned is not None and planned[0] is runner:
                compile_phase, runs = self.core.carry_out(planned[1], request, spec, place, runner)
            else:
                alone = source_key(request) in self.alone
                compile_phase, runs = self.core.execute(request, spec, place, runner, alone)
        except SandboxCrash as crash:
            self.let_go(broken=True)
            return self.core.crashed(request, spec, place, started, str(crash))
        if not runner.queue_ahead:  # given back after every program (Docker recycles its containers)
            self.let_go(broken=False)
        return self.core.finish(request, spec, place, runs, started, compile_phase)

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
