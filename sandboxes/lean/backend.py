"""LeanBackend: the one method of a backend (sandboxes/backends/base.py) for proofs, over the warm pool.

The lean4 language spec's checker (checker.py) opens it for every batch with proofs, whatever the batch's
backend. Each request becomes one proof check; its RunResult has one phase (`compile`: Lean elaborates,
nothing runs), the label (protocol `proof_check`) is SURGE's fl JSON, and the phase's `detail` is the
axiom audit as JSON. What ends a check other than Lean's own answer is a limit or our failure, never the
proof's verdict:

    per-proof timeout (timeout_s) / header timeout -> WALL_TIME_LIMIT, label ""
    RLIMIT_AS reached (memory_mib)                  -> MEMORY_LIMIT, label ""
    response above max_output_bytes                 -> OUTPUT_LIMIT, label ""
    REPL crash, garbage, refusal, pool full          -> SANDBOX_ERROR, label ""
    no `lake` / REPL / project here                  -> TOOLCHAIN_MISSING, label ""
"""

from __future__ import annotations

import atexit
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from types import TracebackType

from pipeline.records import (
    LabelProtocol,
    Limits,
    PhaseLimits,
    PhaseResult,
    Program,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
    content_id,
)
from sandboxes.lean.pool import LeanCheck, PoolFull, ReplPool
from sandboxes.lean.protocol import ReplCrashed, ReplError, ReplOutputLimit, ReplTimeout
from sandboxes.lean.result import fl_label, passes
from sandboxes.lean.settings import LeanSettings
from sandboxes.lean.source import split_source

IMAGE_HINT = (
    "build the Lean image where GitHub is reachable (dockerfiles/lean4/Dockerfile, see docs/lean.md) and "
    "run inside it, or point SURGE_LEAN_REPL_COMMAND / SURGE_LEAN_PROJECT_DIR at a built REPL and Mathlib"
)


def missing_toolchain(settings: LeanSettings) -> str | None:
    """Why no REPL can start here (naming the tool), or None."""
    tool = settings.repl_command[0]
    if shutil.which(tool) is None:
        return f"`{tool}` not found (the REPL command is {' '.join(settings.repl_command)!r}): {IMAGE_HINT}"
    if not settings.project_dir.is_dir():
        return f"the Lean project {settings.project_dir} (Mathlib and the `repl`) is missing: {IMAGE_HINT}"
    return None


def environment_versions(settings: LeanSettings) -> dict[str, str]:
    """What the labels depend on besides the proof: toolchain, Mathlib and REPL revisions, the command."""
    versions = {"repl_command": " ".join(settings.repl_command)}
    toolchain = settings.project_dir / "lean-toolchain"
    if toolchain.is_file():
        versions["lean"] = toolchain.read_text().strip()
    head = settings.project_dir / ".git" / "HEAD"
    if head.is_file():  # the Lean image's project is Mathlib itself, checked out detached at its commit
        versions["mathlib"] = head.read_text().strip()
    manifest = settings.project_dir / "lake-manifest.json"
    if manifest.is_file():
        try:
            for package in json.loads(manifest.read_text()).get("packages", []):
                versions[str(package.get("name"))] = str(package.get("rev"))
        except (ValueError, AttributeError):
            versions["lake-manifest"] = "unreadable"
    return versions


_SHARED: dict[str, ReplPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(settings: LeanSettings) -> ReplPool:
    """One pool per process and settings; its REPLs end when the process does (atexit)."""
    key = settings.model_dump_json()
    with _SHARED_LOCK:
        if key not in _SHARED:
            if not _SHARED:
                atexit.register(close_shared_pools)
            _SHARED[key] = ReplPool(settings)
        return _SHARED[key]


def close_shared_pools() -> None:
    with _SHARED_LOCK:
        pools = list(_SHARED.values())
        _SHARED.clear()
    for pool in pools:
        pool.close()


def lean_identity(settings: LeanSettings | None = None) -> str:
    """The run ids' toolchain identity of a proof check (sandboxes/identity.py): the REPL command and the
    project's Lean, Mathlib and REPL revisions; "missing" where no REPL can start, so that installing
    one makes new runs instead of reusing toolchain_missing rows."""
    settings = settings or LeanSettings()
    if missing_toolchain(settings) is not None:
        return content_id("lean", "missing", settings.repl_command)
    return content_id("lean", environment_versions(settings))


def label_protocol(program: Program) -> LabelProtocol:
    """The program's own protocol (a subset's spec sets it); the default, stdout, reads as the check's
    answer, since a Lean check has one phase and no run whose stdout could be the label (`surge run` of a
    .lean file names no protocol)."""
    return LabelProtocol.PROOF_CHECK if program.protocol is LabelProtocol.STDOUT else program.protocol


class LeanBackend:
    name = "lean-repl"

    def __init__(
        self, settings: LeanSettings | None = None, workers: int | None = None, shared: bool = False
    ) -> None:
        """shared: use the process-wide pool for these settings (the checker does), so that batches run
        one after another or side by side share `max_repls` warm REPLs instead of each starting its own."""
        self.settings = settings or LeanSettings()
        self.workers = workers or self.settings.max_repls
        self.shared = shared
        self.pool = shared_pool(self.settings) if shared else ReplPool(self.settings)
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="lean")
        self.host = socket.gethostname()
        self.pipeline_version = _pipeline_version()  # importlib.metadata reads files: once, not per proof
        self.missing = missing_toolchain(self.settings)
        self.versions = environment_versions(self.settings) if self.missing is None else {}
        self.limits = Limits(
            compile=PhaseLimits(
                cpu_s=self.settings.timeout_s,
                wall_s=self.settings.timeout_s,
                memory_mib=self.settings.memory_mib,
                output_bytes=self.settings.max_output_bytes,
            )
        )

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        yield from self._executor.map(self.run_one, requests)

    def run_one(self, request: RunRequest) -> RunResult:
        started = datetime.now(UTC)
        if self.missing is not None:
            phase = _phase(Verdict.TOOLCHAIN_MISSING, self.missing)
        else:
            phase = self._check(request)
        return self._result(request, phase, started)

    def _check(self, request: RunRequest) -> PhaseResult:
        source = split_source(request.program.entry_file.content)
        clock = time.monotonic()
        try:
            check = self.pool.check(source)
        except PoolFull as full:
            return _phase(Verdict.SANDBOX_ERROR, f"{full} (fix: {full.hint})", clock)
        except ReplError as error:
            return self._failed(error, clock)
        return _checked(check, self.settings)

    def _failed(self, error: ReplError, clock: float) -> PhaseResult:
        settings = self.settings
        if isinstance(error, ReplTimeout):
            which = "SURGE_LEAN_HEADER_TIMEOUT_S" if error.what == "header" else "SURGE_LEAN_TIMEOUT_S"
            detail = (
                f"{which}={error.limit_s:g} s ended the {error.what}; the REPL was killed and is replaced"
            )
            return _phase(Verdict.WALL_TIME_LIMIT, detail, clock)
        if isinstance(error, ReplOutputLimit):
            detail = f"SURGE_LEAN_MAX_OUTPUT_BYTES={error.limit_bytes} ended the check; the REPL was killed"
            return _phase(Verdict.OUTPUT_LIMIT, detail, clock)
        if isinstance(error, ReplCrashed) and error.out_of_memory:
            detail = f"SURGE_LEAN_MEMORY_MIB={settings.memory_mib} (RLIMIT_AS) ended the check: {error}"
            return _phase(Verdict.MEMORY_LIMIT, detail, clock)
        if isinstance(error, ReplCrashed) and _repl_not_found(error.stderr_tail):
            return _phase(
                Verdict.TOOLCHAIN_MISSING, f"the `repl` did not start ({error}): {IMAGE_HINT}", clock
            )
        return _phase(Verdict.SANDBOX_ERROR, f"the Lean REPL failed, not the proof: {error}", clock)

    def _result(self, request: RunRequest, phase: PhaseResult, started: datetime) -> RunResult:
        """The label as the program's protocol says (fl's spec: PROOF_CHECK, the check's answer when Lean
        answered, else empty)."""
        return RunResult.answering(
            request,
            compile=phase,
            run=None,
            verdict=phase.verdict,
            protocol=label_protocol(request.program),
            origin=dict(request.program.origin),
            provenance=Provenance(
                backend=self.name,
                profile=request.profile.name,
                toolchain_versions=self.versions,
                limits=self.limits,
                host=self.host,
                started_at=started,
                pipeline_version=self.pipeline_version,
            ),
        )

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        if not self.shared:
            self.pool.close()

    def __enter__(self) -> LeanBackend:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _checked(check: LeanCheck, settings: LeanSettings) -> PhaseResult:
    """Lean answered: the label is the program's (pass or not), the audit rides along in `detail`."""
    facts = {
        "audit": check.audit.model_dump() if check.audit else None,
        "repl_pid": check.repl_pid,
        "reused_repl": check.reused,
        "header_s": round(check.header_s, 3),
        "garbage_lines": check.garbage_lines,
    }
    return PhaseResult(
        command=tuple(settings.repl_command),
        stdout=fl_label(check.messages, check.sorries),
        wall_s=check.wall_s,
        verdict=Verdict.OK if passes(check.messages) else Verdict.COMPILE_ERROR,
        detail=json.dumps(facts, sort_keys=True),
    )


def _phase(verdict: Verdict, detail: str, clock: float | None = None) -> PhaseResult:
    wall_s = time.monotonic() - clock if clock is not None else 0.0
    return PhaseResult(verdict=verdict, detail=detail, wall_s=wall_s)


def _repl_not_found(stderr: str) -> bool:
    lowered = stderr.lower()
    return "unknown executable" in lowered or "not found" in lowered or "no such file" in lowered


def _pipeline_version() -> str:
    try:
        return version("surge-pipeline")
    except PackageNotFoundError:
        return "unknown"
