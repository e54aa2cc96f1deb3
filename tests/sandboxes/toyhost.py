"""toyhost: a backend written from scratch, as docs/sandboxes.md's "Adding a backend" tells a newcomer to.

Each program runs with `subprocess` in a fresh temporary folder on this machine: no isolation, trusted
programs only. It is one method, ``run_batch``, and its ``SPEC``; it imports nothing of bubblewrap, Docker
or the runner core, and asks the language's spec what to write, compile and run. The tests register it
(tests/sandboxes/test_throwaway_backend.py) and run the backend contract on it
(tests/sandboxes/test_backend_contract.py).
"""

from __future__ import annotations

import functools
import math
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pipeline.records import (
    PhaseLimits,
    PhaseResult,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
    compare_repeats,
    content_id,
)
from sandboxes.backends.registry import BackendSpec
from sandboxes.languages import WORKDIR, LanguageSpec, spec_for

NAME = "toyhost"
PATH = "/usr/local/bin:/usr/bin:/bin"
OPENED: list[int] = []  # the workers of every backend opened, for the tests to see


class ToyHost:
    """Runs a batch one program after another."""

    def __init__(self, workers: int) -> None:
        OPENED.append(workers)

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        for request in requests:
            yield run_one(request)


def run_one(request: RunRequest) -> RunResult:
    started = datetime.now(UTC)
    spec = spec_for(request.program.language)
    tools = spec.tools(request.setting, request.profile)
    missing = next((tool for tool in tools if shutil.which(tool, path=PATH) is None), None)
    if missing is not None:
        detail = f"`{missing}` is not installed: {spec.install_hint(missing)}"
        return answer(request, started, None, [PhaseResult(verdict=Verdict.TOOLCHAIN_MISSING, detail=detail)])
    with tempfile.TemporaryDirectory(prefix="toyhost-") as folder:
        app = Path(folder)
        for name, text in spec.placed_files(request.program):
            (app / name).parent.mkdir(parents=True, exist_ok=True)
            (app / name).write_text(text)
        compiled = compile_in(app, request, spec)
        if compiled is not None and compiled.verdict is not Verdict.OK:
            return answer(request, started, compiled, [])
        argv = in_folder(app, spec.run_argv(request.program, request.setting, request.profile))
        runs = [execute(argv, app, request.limits.run, request.program.stdin) for _ in range(request.repeats)]
    return answer(request, started, compiled, runs)


def compile_in(app: Path, request: RunRequest, spec: LanguageSpec) -> PhaseResult | None:
    if not spec.compiled:
        return None
    argv = in_folder(app, spec.compile_argv(request.program, request.setting, request.profile))
    phase = execute(argv, app, request.limits.compile, None)
    if phase.verdict in (Verdict.RUNTIME_ERROR, Verdict.SIGNAL):  # the compiler refused the program
        return phase.model_copy(update={"verdict": Verdict.COMPILE_ERROR})
    return phase


def in_folder(app: Path, argv: list[str]) -> list[str]:
    """The spec's /app paths, pointed at this program's folder."""
    return [str(app) + arg[len(WORKDIR) :] if arg.startswith(WORKDIR) else arg for arg in argv]


def execute(argv: list[str], app: Path, limits: PhaseLimits, stdin: str | None) -> PhaseResult:
    clock = time.monotonic()
    env = {"PATH": PATH, "HOME": str(app), "LANG": "C.UTF-8"}
    try:
        done = subprocess.run(
            argv, cwd=app, env=env, input=(stdin or "").encode(), capture_output=True,
            timeout=limits.wall_s, preexec_fn=cpu_limit(limits.cpu_s),
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        detail = f"killed after its wall limit of {limits.wall_s:g} s"
        return PhaseResult(
            command=tuple(argv), verdict=Verdict.WALL_TIME_LIMIT, detail=detail, wall_s=limits.wall_s
        )
    wall_s = time.monotonic() - clock
    code = done.returncode
    too_long = len(done.stdout) > limits.output_bytes
    return PhaseResult(
        command=tuple(argv),
        stdout=done.stdout[: limits.output_bytes].decode("utf-8", "replace"),
        stderr=done.stderr[: limits.output_bytes].decode("utf-8", "replace"),
        stdout_truncated=too_long,
        exit_code=code if code >= 0 else None,
        signal=signal.Signals(-code).name if code < 0 else None,
        wall_s=wall_s,
        verdict=Verdict.OUTPUT_LIMIT if too_long else verdict_of(code),
    )


def cpu_limit(cpu_s: float) -> Callable[[], None]:
    seconds = math.ceil(cpu_s)
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def verdict_of(code: int) -> Verdict:
    if code == 0:
        return Verdict.OK
    if code == -signal.SIGXCPU:
        return Verdict.CPU_TIME_LIMIT
    return Verdict.SIGNAL if code < 0 else Verdict.RUNTIME_ERROR


def answer(
    request: RunRequest, started: datetime, compiled: PhaseResult | None, runs: list[PhaseResult]
) -> RunResult:
    """The result with the provenance this backend adds: its name and the tools' version lines."""
    verdict: Verdict
    if compiled is not None and compiled.verdict is not Verdict.OK:
        verdict = compiled.verdict
    else:
        verdict = runs[0].verdict if runs else Verdict.SANDBOX_ERROR
    repeats = compare_repeats(request.program.protocol, compiled, runs)
    tools = spec_for(request.program.language).tools(request.setting, request.profile)
    return RunResult.answering(
        request,
        compile=compiled,
        run=runs[0] if runs else None,
        verdict=verdict,
        protocol=request.program.protocol,
        repeats=max(1, len(runs)),
        distinct_outputs=repeats.distinct,
        varied=repeats.varied,
        other_runs=repeats.others,
        origin=dict(request.program.origin),
        provenance=Provenance(
            backend=NAME,
            profile=request.profile.name,
            toolchain_versions={tool: version_line(tool) for tool in tools},
            limits=request.limits,
            host=socket.gethostname(),
            started_at=started,
            pipeline_version="toyhost",
        ),
    )


@functools.cache
def version_line(tool: str) -> str:
    path = shutil.which(tool, path=PATH)
    if path is None:
        return "missing"
    probe = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    lines = (probe.stdout.strip() or probe.stderr.strip()).splitlines()
    return lines[0] if lines else ""


def language_identity(request: RunRequest) -> str:
    return content_id(NAME, request.program.language)


SPEC = BackendSpec(
    name=NAME,
    open=lambda unsafe, workers: ToyHost(workers),
    identity=lambda: language_identity,
    status=lambda: {"available": True, "summary": "each program in a temporary folder, no isolation"},
)
