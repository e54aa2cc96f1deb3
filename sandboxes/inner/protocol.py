"""The runner protocol's records, defined once for both sides (JSON lines: runner.py's docstring shows them).

The host builds jobs and reads results with these (sandboxes/jobs.py, sandboxes/core.py, the compile
cache); the in-sandbox runner (runner.py) names them in its annotations only, under ``TYPE_CHECKING``:
it runs as one file (Docker passes its source to ``python3 -c``; bwrap runs it with ``-I``, which keeps
its folder off the import path), so it never imports this module, while mypy checks both sides against
it. STDLIB ONLY and Python >= 3.9 like the runner: no ``NotRequired`` (optional keys sit in a
``total=False`` subclass of the required ones), and annotations stay strings (``from __future__``).
"""

from __future__ import annotations

from typing import TypedDict


class PhaseLimits(TypedDict, total=False):
    """What the runner enforces on each run of a phase (``pipeline.records.PhaseLimits``; a key left out,
    as in a tool probe, takes the runner's default)."""

    cpu_s: float
    wall_s: float
    memory_mib: int
    processes: int
    output_bytes: int
    file_size_bytes: int


class _FileRequired(TypedDict):
    path: str  # relative to the job's workdir


class JobFile(_FileRequired, total=False):
    """A file written before the phases: ``text`` (UTF-8), or ``b64`` bytes and a ``mode`` (a cached
    executable)."""

    text: str
    b64: str
    mode: int


class WarmServer(TypedDict):
    """A compiler kept warm across a runner's programs (warm.py): the command that starts its server
    (``{servers}``: the folder of the servers' sources) and the compile command's tool it stands for."""

    server: list[str]
    serves: str


class SeedFile(TypedDict):
    path: str
    text: str


class _SeedRequired(TypedDict):
    serves: str  # the compile command's tool it is for
    files: list[SeedFile]
    argv: list[str]


class SeededCache(_SeedRequired, total=False):
    """What a seed program's compile leaves, made once per runner (warm.py's SeededCaches): its files and
    compile command, and how a compile uses it: a copy of the cache it filled at the path the compile
    environment's ``cache_env`` names, or arguments after the tool (``with_seed``, ``{seed}``: its
    folder) for programs that begin with ``prologue``."""

    cache_env: str
    with_seed: list[str]
    prologue: str


class _PhaseRequired(TypedDict):
    name: str  # "compile", "run", ...
    argv: list[str]  # executed directly (no shell) after a PATH lookup


class Phase(_PhaseRequired, total=False):
    cwd: str
    stdin: str
    env: dict[str, str]
    limits: PhaseLimits
    memory_rlimit: str  # "data" | "as" | "none"
    repeat: int  # run the phase this many times (determinism checks)
    stop_unless_ok: bool  # skip the following phases unless every run was "ok"
    warm: WarmServer  # a compile a warm compiler may answer (warm.py says when it does)
    seed: SeededCache  # a compile that may start from a seeded cache (warm.py)


class _JobRequired(TypedDict):
    id: str
    phases: list[Phase]


class Job(_JobRequired, total=False):
    reset: bool  # clear the workdir and /tmp first (a new program); False keeps them
    workdir: str
    files: list[JobFile]
    artifacts: list[str]  # globs under the workdir to hash after the phases
    artifacts_after: str  # ... or right after the phase of that name
    export: bool  # also return the artifacts' bytes, for a cache (base64, or files in --export-dir)


class _RunRequired(TypedDict):
    argv: list[str]
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    exit_code: int | None
    signal: str | None
    cpu_user_s: float
    cpu_sys_s: float
    wall_s: float
    max_rss_kib: int
    status: str  # "ok" | "runtime_error" | "signal" | "..._limit" | "exec_failed" | "sandbox_error"
    detail: str  # why, where the streams do not say


class RawRun(_RunRequired, total=False):
    """One run's raw facts, then its status; a stream's bytes only when they are not valid UTF-8."""

    stdout_b64: str
    stderr_b64: str
    # A compile's wall time beyond ``wall_s`` spent on work a cold compile does not do (warm.py): a
    # compiler's seed, a warm server's start, a warm answer checked against a cold compile or thrown away.
    setup_wall_s: float


class PhaseRuns(TypedDict):
    name: str
    runs: list[RawRun]


class _ArtifactRequired(TypedDict):
    path: str
    sha256: str
    size: int
    mode: int


class ArtifactFile(_ArtifactRequired, total=False):
    b64: str  # with ``export``, from a runner without an export folder
    exported: bool  # with ``export``: written to the runner's export folder as a file named by its sha256


class Artifacts(TypedDict):
    digest: str | None  # sha256 of the (path, sha256) pairs; None when no file matched
    files: list[ArtifactFile]


class _ResultRequired(TypedDict):
    id: str | None
    ok: bool
    error: str
    phases: list[PhaseRuns]  # skipped phases are absent


class JobResult(_ResultRequired, total=False):
    artifacts: Artifacts  # absent when the job failed before its phases
    refused: bool  # never run: the runner was spent (--spent-on); "ok" is false


class CachedCompile(TypedDict):
    """A compile cache entry (sandboxes/compile_cache.py): the compile's run and its artifacts."""

    compile: RawRun
    artifacts: Artifacts
