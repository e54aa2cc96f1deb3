"""Bare baselines: the executions a sandbox carried out, done again on the host with the same commands.

A ratio against a bare loop says what our machinery costs only when the loop does the work the measured
side did: the same compiles (none where the sandbox's compile cache answered), the same runs (none where
the run of an identical binary was shared), each run as often as its request repeats it, under the same
CPU limit, as many programs at once as the sandbox ran. A loop written beside the measured side drifts
from it: when tc's build gained its calibration ladders and timing copies its bare loop did not, and the
ratio read 8.4 while saying nothing about overhead. So the loop here is derived from the measured side's
own requests and results (``executions``), and follows whatever the measured side decides to run.

What the loop leaves out is exactly what is measured: the runner and its isolation, planning, the
store, the flow engine. Each program is compiled and run with its language spec's own argv and
environment, in a fresh folder per program as the sandbox gives one (a binary served from the compile
cache runs where the loop compiled it).
"""

from __future__ import annotations

import contextlib
import math
import resource
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.records import EnvironmentProfile, PhaseLimits, Program, RunRequest, RunResult, Verdict
from sandboxes.languages import WORKDIR, spec_for
from sandboxes.profiles import SANDBOX_HOME, sandbox_env

CACHE_HIT = "compile cache hit"  # sandboxes/jobs.py: the detail of a compile the cache answered
SHARED_RUN = "shared run"  # ... and of a run shared with an identical binary's
NOT_CARRIED_OUT = (Verdict.SANDBOX_ERROR, Verdict.TOOLCHAIN_MISSING)  # ours: the program never ran


@dataclass(frozen=True)
class Execution:
    """One request as the sandbox carried it out: did it compile, did it run (``repeats`` times)."""

    request: RunRequest
    compiles: bool
    runs: bool


@dataclass(frozen=True)
class Replay:
    seconds: float
    compiles: int
    runs: int  # program runs, repeats counted


def executions(requests: Iterable[RunRequest], results: Iterable[RunResult]) -> list[Execution]:
    """What the sandbox did for each request, read from its result."""
    found = []
    for request, result in zip(requests, results, strict=True):
        if result.verdict in NOT_CARRIED_OUT:
            found.append(Execution(request, compiles=False, runs=False))
            continue
        compiled = result.compile is not None and not result.compile.detail.startswith(CACHE_HIT)
        ran = result.run is not None and not result.run.detail.startswith(SHARED_RUN)
        found.append(Execution(request, compiles=compiled, runs=ran))
    return found


def stored_executions(
    store_root: Path, programs: Iterable[Program], profile: EnvironmentProfile
) -> list[Execution]:
    """What a command (`surge run`, in a process of its own) carried out, read from its store's runs: each
    run's request rebuilt from its program (one of ``programs``), setting, limits and repeats."""
    from pipeline.store import Store

    by_id = {program.program_id: program for program in programs}
    runs = list(Store(store_root).runs.records())
    requests = [
        RunRequest(
            program=by_id[run.program_id],
            setting=run.setting,
            profile=profile,
            limits=run.provenance.limits,
            repeats=run.repeats,
        )  # fmt: skip
        for run in runs
    ]
    return executions(requests, runs)


def replay_seconds(batches: Sequence[Sequence[Execution]], workers: int) -> Replay:
    """Wall time to carry out the batches' executions bare, ``workers`` at a time within a batch and the
    batches one after another, as the sandbox ran them. A binary the sandbox took from its compile
    cache, compiled by no earlier execution here, is compiled before the clock starts."""
    with tempfile.TemporaryDirectory(prefix="surge-bare-") as folder:
        loop = BareLoop(Path(folder))
        for batch in batches:
            for execution in batch:
                if not execution.compiles and execution.runs and loop.compiled_language(execution):
                    loop.ensure_binary(execution.request)
        loop.compiles = loop.runs = 0
        started = time.perf_counter()
        for batch in batches:
            with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                list(pool.map(loop.carry_out, batch))
        return Replay(time.perf_counter() - started, loop.compiles, loop.runs)


class BareLoop:
    """Compiles and runs programs on the host, each in a folder of its own under ``scratch``."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.binaries: dict[str, Path | None] = {}  # compile key -> its folder (None: it did not compile)
        self.lock = threading.Lock()
        self.folders = 0
        self.compiles = 0
        self.runs = 0

    @staticmethod
    def compiled_language(execution: Execution) -> bool:
        program = execution.request.program
        return spec_for(program.language).compiled and not program.run_instruction

    def carry_out(self, execution: Execution) -> None:
        request = execution.request
        folder: Path | None
        if not self.compiled_language(execution):
            folder = self.placed(request)
        elif execution.compiles:
            folder = self.compile(request)
        else:
            folder = self.binaries.get(self.compile_key(request))
        if folder is None or not execution.runs:
            return
        argv, env = self.run_command(request, folder)
        for _ in range(request.repeats):
            self.bare(argv, env, folder, request.limits.run, request.program.stdin)
            with self.lock:
                self.runs += 1

    def ensure_binary(self, request: RunRequest) -> None:
        if self.compile_key(request) not in self.binaries:
            self.compile(request)

    def compile(self, request: RunRequest) -> Path | None:
        folder = self.placed(request)
        spec = spec_for(request.program.language)
        argv = spec.compile_argv(request.program, request.setting, request.profile)
        done = self.bare(self.here(argv, folder), self.environment(request, folder), folder,
                         request.limits.compile, "")  # fmt: skip
        with self.lock:
            self.compiles += 1
            self.binaries[self.compile_key(request)] = folder if done == 0 else None
        return folder if done == 0 else None

    def placed(self, request: RunRequest) -> Path:
        with self.lock:
            self.folders += 1
            folder = self.scratch / f"p{self.folders}"
        folder.mkdir()
        for name, text in spec_for(request.program.language).placed_files(request.program):
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        return folder

    def run_command(self, request: RunRequest, folder: Path) -> tuple[list[str], dict[str, str]]:
        program = request.program
        spec = spec_for(program.language)
        if program.run_instruction:
            argv = ["sh", "-c", program.run_instruction]
        else:
            argv = spec.run_argv(program, request.setting, request.profile)
        if spec.compiled and spec.heap_flag:  # as sandboxes/jobs.py sizes the JVM's heap
            argv.insert(1, spec.heap_flag.format(max(16, request.limits.run.memory_mib // 2)))
        return self.here(argv, folder), self.environment(request, folder, spec.run_env)

    @staticmethod
    def compile_key(request: RunRequest) -> str:
        program = request.program
        spec = spec_for(program.language)
        argv = spec.compile_argv(program, request.setting, request.profile)
        return repr((spec.placed_files(program), argv))

    @staticmethod
    def here(argv: list[str], folder: Path) -> list[str]:
        """The sandbox's /app paths pointed at this program's folder."""
        return [str(folder) + arg[len(WORKDIR) :] if arg.startswith(WORKDIR) else arg for arg in argv]

    @staticmethod
    def environment(request: RunRequest, folder: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = sandbox_env(request.profile, extra)
        home = folder / "home"
        home.mkdir(exist_ok=True)
        return {
            name: str(home) if value == SANDBOX_HOME else value.replace(WORKDIR, str(folder))
            for name, value in env.items()
        }

    @staticmethod
    def bare(argv: list[str], env: dict[str, str], folder: Path, limits: PhaseLimits, stdin: str) -> int:
        """One process under the phase's CPU limit (its wall limit a timeout); its exit code (-1: killed
        at the wall limit). Output is read, as the sandbox reads it, and dropped (not cut at the
        sandbox's output limit: no bench program comes near it)."""
        process = subprocess.Popen(
            argv, cwd=folder, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        limit_cpu(process.pid, limits.cpu_s)
        try:
            process.communicate(stdin.encode(), timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return -1
        return process.returncode


def limit_cpu(pid: int, cpu_s: float) -> None:
    """RLIMIT_CPU at the phase's limit, rounded up to whole seconds (the kernel's unit for it), set on the
    process once it runs: the limit counts the CPU it used before, so nothing escapes it. Not by a
    ``preexec_fn``, which makes Python fork this large process instead of vfork (~25 ms a program here,
    which made the bare loop slower than the sandbox), nor by util-linux's prlimit in front of the
    command (an exec more per program, ~1 ms, the order of a small C program's whole run)."""
    seconds = max(1, math.ceil(cpu_s))
    with contextlib.suppress(ProcessLookupError):  # it has already ended
        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))


class Recorded:
    """Every batch the sandbox layer runs while open, and as how many workers: ``sandboxes.open_backend``
    wrapped, so a build's executions (tc's calibration ladders and timing copies among them) are noted as
    they happen, without the build knowing. The build runs in this process (Prefect's thread pool)."""

    def __init__(self) -> None:
        self.batches: list[list[Execution]] = []
        self.workers: set[int] = set()
        self.original: Any = None

    def __enter__(self) -> Recorded:
        import sandboxes

        self.original = sandboxes.open_backend

        def opened(*args: Any, **kwargs: Any) -> Any:
            self.workers.add(kwargs.get("workers", 1))
            return _Recording(self.original(*args, **kwargs), self.batches)

        sandboxes.open_backend = opened
        return self

    def __exit__(self, *exc: object) -> None:
        import sandboxes

        sandboxes.open_backend = self.original

    def replay_seconds(self) -> Replay:
        """The recorded batches bare, as many at a time as the build's sandbox ran them."""
        assert len(self.workers) <= 1, f"batches ran at different widths: {self.workers}"
        return replay_seconds(self.batches, next(iter(self.workers), 1))


class _Recording:
    def __init__(self, backend: Any, batches: list[list[Execution]]) -> None:
        self.backend = backend
        self.batches = batches

    def __enter__(self) -> _Recording:
        self.backend.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.backend.__exit__(*exc)

    def run_batch(self, requests: Iterable[RunRequest]) -> Iterator[RunResult]:
        asked = list(requests)
        results = list(self.backend.run_batch(asked))
        self.batches.append(executions(asked, results))
        return iter(results)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)
