#!/usr/bin/env python3
"""The in-sandbox runner: one process serves a whole batch of jobs (start-up is paid once per batch).

STDLIB ONLY, Python >= 3.9: it runs inside bubblewrap with the host's /usr/bin/python3 and inside Docker
images with their system python3. The host side is sandboxes/backends/bwrap.py (and the Docker backend).

Protocol (JSON lines, UTF-8; its records, for both sides, are the TypedDicts of protocol.py)
------------------------------------------------------------------------------------------
On start the runner writes one line ``{"ready": true, "runner": VERSION, "uid": .., "python": "..",
"wall": true|false}`` (wall: this runner, and so every program it starts, is behind the spawn helper's
seccomp filter), or ``{"ready": false, "error": ".."}`` and exits when a ``--spawn-helper`` it was given
does not work or it was not started behind the helper's wall (``become --wall``).
Then, for each line read on stdin (a *job*), it writes exactly one line on stdout (its *result*), in order.
The host may write the next job while one runs (it waits in the pipe). EOF on stdin ends the runner.
Where the host replaces a sandbox that a program may have spoilt (Docker), it says when (``--spent-on``
a status; a job that fails, too): from then on every job is refused unrun, so the one it queued behind
that program runs in a fresh sandbox instead.
Its own diagnostics go to stderr, never stdout.

Job::

    {"id": "any string",
     "reset": true,                  # clear the workdir and /tmp first (a new program); false keeps them
     "workdir": "/app",
     "files": [{"path": "main.cpp", "text": "..."},               # relative to workdir
               {"path": "main", "b64": "...", "mode": 493}],      # binary content (a cached executable)
     "phases": [{"name": "compile" | "run" | ...,
                 "argv": ["g++", "main.cpp"],  # executed directly (no shell) after a PATH lookup
                 "cwd": "/app", "stdin": "", "env": {"PATH": "..."},
                 "limits": {"cpu_s": 1, "wall_s": 2, "memory_mib": 256, "processes": 64,
                            "output_bytes": 1048576, "file_size_bytes": 67108864},
                 "memory_rlimit": "data" | "as" | "none",
                 "repeat": 1,                  # run this phase N times (determinism checks)
                 "stop_unless_ok": true}],     # skip the following phases unless every run was "ok"
     "artifacts": ["main", "*.class"],       # globs under workdir to hash after the phases
     "artifacts_after": "compile",           # ... or right after the phase of that name (optional)
     "export": false}                        # also return the artifacts' bytes, for a cache: as files
                                             # named by their sha256 in --export-dir, else base64

Result::

    {"id": .., "ok": true, "error": "", "refused"?: true,     # refused: never run (--spent-on; ok false)
     "phases": [{"name": .., "runs": [RUN, ...]}],          # skipped phases are absent
     "artifacts": {"digest": "sha256 of (path, sha256) pairs" | null,
                   "files": [{"path", "sha256", "size", "mode", "b64"? | "exported"?: true}]}}

RUN: raw facts, then one status::

    {"argv", "stdout", "stderr", "stdout_truncated", "stderr_truncated", "exit_code", "signal",
     "cpu_user_s", "cpu_sys_s", "wall_s", "max_rss_kib",
     "stdout_b64"?, "stderr_b64"?,          # the stream's bytes, only when they are not valid UTF-8
     "status": "ok" | "runtime_error" | "signal" | "cpu_time_limit" | "wall_time_limit" | "memory_limit"
               | "output_limit" | "exec_failed" | "sandbox_error",
     "detail": "why, where the streams do not say"}

How limits are enforced (per run)
---------------------------------
- The child gets its own session (setsid), rlimits CPU (soft = ceil(cpu_s), SIGKILL one second later),
  DATA or AS (memory_mib), FSIZE, CORE = 0 and, when the runner can drop privileges, NPROC.
  With ``--spawn-helper`` (become.c, built by the host) a small static binary sets them, switches to
  ``--uid`` (when given) and execs the program: a vfork and two execs per start instead of a fork of this
  process. Compilers go through it too. The second wall (no new privileges and a seccomp filter:
  become.c says which calls it refuses) is the runner's own: the same helper put it up before it exec'd
  this runner (``become --wall``), and every process started from here inherits it.
- When the runner is real root (bwrap as root without a user namespace, or Docker) every child runs under
  ``--uid`` (an unprivileged uid reserved for this sandbox): RLIMIT_NPROC then bites (root ignores it),
  /etc/shadow is unreadable, and "kill every process of that uid" kills the whole tree, including
  children that detached with setsid. Otherwise (``--kill all-in-namespace``) the runner must be alone in a
  private PID namespace and kills every process but itself and PID 1 with kill(-1).
- rusage comes from wait4 on the program itself (its waited-for descendants included), never from this
  Python parent: with bwrap --unshare-pid, wait4 on bwrap would lose it.
- Wall time is measured here; on wall_s the whole tree is killed. Output goes through pipes capped at
  output_bytes per stream: the excess is cut, flagged, and the tree killed (status output_limit).
- A SIGKILL none of the above explains runs the phase once more: killed again, it is the program's own
  (status signal); not, an outsider killed it (its container, the OOM killer), and the run is ours
  (status sandbox_error), never the program's verdict (``Runner.run_phase``).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import errno
import fnmatch
import hashlib
import importlib.util
import json
import math
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the protocol's records, for mypy only: this file runs alone (see protocol.py)
    from sandboxes.inner.protocol import (
        ArtifactFile,
        Artifacts,
        Job,
        JobFile,
        JobResult,
        Phase,
        PhaseLimits,
        PhaseRuns,
        RawRun,
    )
    from sandboxes.inner.warm import WarmCompilers

VERSION = "1"
READ_CHUNK_BYTES = 65536
# The JVM, V8 and Mono reserve far more address space than they use; RLIMIT_DATA counts only writable
# private memory (Linux >= 4.7), so it limits what is used without breaking those runtimes.
DEFAULT_MEMORY_RLIMIT = "data"
# Abnormal exits with one of these on stderr are allocation failures (RLIMIT_DATA makes malloc fail).
OOM_MARKERS = (
    "MemoryError",
    "std::bad_alloc",
    "java.lang.OutOfMemoryError",
    "memory allocation of",
    "heap out of memory",
    "Out of memory",
    "OutOfMemoryException",
    "Cannot allocate memory",
    "not enough memory",  # Lua
    "failed to allocate memory",  # Ruby's NoMemoryError
    "cannot allocate vector of size",  # R
    "out of memory",  # Racket CS, which then aborts (SIGABRT)
    "alloc: cannot allocate",  # bash (its xmalloc and xrealloc)
)
MEMORY_NEAR_LIMIT_FRACTION = 0.9
# How far below its limit the CPU time of a run that RLIMIT_CPU ended may read (see reached_cpu_limit),
# and strsignal(SIGXCPU) as compiler drivers and shells print it when a child was ended by that limit.
RLIMIT_TICK_SLACK_FRACTION = 0.5
XCPU_MESSAGE = "CPU time limit exceeded"
# How a shell reports a child a signal ended (128 + its number), and how gcc's driver reports a child
# ended by SIGKILL: the child's kill, as the process we started tells it.
SHELL_SIGNAL_EXIT_BASE = 128
DRIVER_KILLED_MESSAGE = "Killed signal terminated program"
KILL_PASSES = 20
KILL_DEADLINE_S = 5.0
# Below this the runner itself could not run under the phase's memory limit during a spawn.
FAST_SPAWN_MIN_MEMORY_MIB = 64
# Signals Python ignores at start, which an exec would pass on ignored: a program gets them at their
# default, as Popen's restore_signals gives them.
SPAWN_DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
# How often a running program's CPU time is read from /proc (RLIMIT_CPU only has whole seconds), and how
# often its exit is looked for where no pidfd tells it (Linux < 5.3).
CPU_POLL_S = 0.1
EXIT_POLL_S = 0.02
CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
SMALL_FILE_BYTES = 65536  # more than a /proc/<pid>/stat or an empty /proc/sysvipc table holds
SECCOMP_MODE_FILTER = b"2"  # /proc/<pid>/status "Seccomp:" of a process behind a filter


def main() -> None:
    options = parse_options()
    broken_wall = wall_fault(options.spawn_helper)
    if broken_wall:
        emit({"ready": False, "error": broken_wall})
        sys.exit(1)
    runner = Runner(options)
    emit(
        {
            "ready": True,
            "runner": VERSION,
            "uid": os.getuid(),
            "python": sys.version.split()[0],
            "wall": options.spawn_helper is not None,
        }
    )
    try:
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            emit(runner.handle(line))
    finally:
        runner.close()


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="in-sandbox batch runner (JSON lines on stdin/stdout)")
    parser.add_argument("--uid", type=int, default=None, help="run programs as this uid (needs root)")
    parser.add_argument("--gid", type=int, default=None, help="and this gid (default: the uid)")
    parser.add_argument(
        "--kill",
        choices=("uid", "all-in-namespace", "group"),
        default=None,
        help="how to kill a tree: every process of --uid, every process in this PID namespace, or the "
        "process group only (unsafe mode: detached children can escape)",
    )
    parser.add_argument("--scratch", action="append", default=None, help="dirs cleared between jobs")
    parser.add_argument(
        "--clear-ipc",
        action="store_true",
        help="remove every System V IPC object after each phase (only in an IPC namespace of our own)",
    )
    parser.add_argument(
        "--spent-on",
        action="append",
        default=[],
        help="a run status after which every later job is refused unrun (a program that hit a limit may have "
        "left state behind; the host replaces the sandbox, and may have queued the next job before it knew); "
        "a job that fails spends the runner too",
    )
    parser.add_argument(
        "--no-rlimit-nproc",
        action="store_true",
        help="leave RLIMIT_NPROC unset: the --uid is shared with other sandboxes (Docker's containers all "
        "run programs as one uid) and the kernel counts a uid's processes machine-wide; a pids cgroup bounds "
        "them instead",
    )
    parser.add_argument(
        "--spawn-helper",
        default=None,
        help="a static binary (become.c) that sets the limits, switches to --uid and execs the program "
        "(each start a vfork, not a fork of this process); it must work, and this runner must have been "
        "started behind its seccomp filter (become --wall)",
    )
    parser.add_argument(
        "--export-dir",
        default=None,
        help="a folder the host reads: exported artifacts are written there as files named by their "
        "sha256 instead of base64 in the result line (a 4 MB binary cost the host ~70 ms of a core to "
        "decode); its programs must not be able to write there, or the host must check each file's hash",
    )
    options = parser.parse_args()
    if options.uid is not None and os.getuid() != 0:
        options.uid = None  # cannot drop privileges: keep running as ourselves
    if options.gid is None:
        options.gid = options.uid
    if options.kill is None:
        options.kill = "uid" if options.uid is not None else "group"
    if options.kill == "uid" and options.uid is None:
        options.kill = "group"
    options.scratch = options.scratch or []
    # RLIMIT_NPROC counts every process of the real uid on the machine: it bounds a program only when that
    # uid is the program's alone (never the runner's own, never one shared with other sandboxes)
    options.rlimit_nproc = options.uid is not None and not options.no_rlimit_nproc
    return options


def warm_compilers(options: argparse.Namespace, spawn) -> WarmCompilers | None:
    """The warm compilers (warm.py, beside this file), where the programs have a uid of their own, whose
    kill after every phase the servers' own uid outlives, and the spawn helper's wall holds; None
    elsewhere, and when this file runs alone (Docker passes only its source)."""
    here = globals().get("__file__")
    if options.kill != "uid" or options.spawn_helper is None or not here:
        return None
    folder = os.path.dirname(os.path.abspath(here))
    spec = importlib.util.spec_from_file_location("surge_warm", os.path.join(folder, "warm.py"))
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.WarmCompilers(os.path.join(folder, "warm_servers"), spawn, options.uid, options.gid)


def wall_fault(helper: str | None) -> str:
    """Why programs cannot start here behind the spawn helper's wall ('' when they can, or when no helper
    was given): the helper's own check puts the filter up in a child and proves a denied call fails, and
    this runner must itself be behind a filter (the helper's, put up by ``become --wall`` before it
    exec'd us after the same proof), which every program then inherits."""
    if helper is None:
        return ""
    if not (os.path.isfile(helper) and os.access(helper, os.X_OK)):
        return f"spawn helper {helper} is not an executable file"
    try:
        check = subprocess.run([helper, "--check"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"spawn helper {helper} does not run: {error}"
    if check.returncode != 0:
        return f"spawn helper {helper} --check failed: {check.stderr.decode('utf-8', 'replace').strip()}"
    return own_wall_fault(helper)


def own_wall_fault(helper: str) -> str:
    """'' when this process has no new privileges and a seccomp filter in force (/proc/self/status), else
    why not: a runner started without ``become --wall`` would start its programs without the wall."""
    status = read_small_file("/proc/self/status") or b""
    fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
    no_new_privileges = fields.get(b"NoNewPrivs", b"").strip() == b"1"
    filtered = fields.get(b"Seccomp", b"").strip() == SECCOMP_MODE_FILTER
    if no_new_privileges and filtered:
        return ""
    return (
        f"the runner is not behind the seccomp filter (NoNewPrivs {no_new_privileges}, filter {filtered} in "
        f"/proc/self/status): start it through `{helper} --wall`"
    )


def emit(message: JobResult | dict) -> None:
    """One line on stdout, written whole (nothing else of ours writes there)."""
    write_all(sys.stdout.fileno(), (json.dumps(message, ensure_ascii=True) + "\n").encode("ascii"))


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Runner:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.path_cache: dict[tuple[str, str], str | None] = {}
        self.warm = warm_compilers(options, self.spawn_server)
        self.spent = ""  # why every later job is refused ('' while jobs are taken)

    def close(self) -> None:
        """Stop the warm compilers, and whatever of their uid is left."""
        if self.warm is not None:
            self.warm.close()
            kill_every_process_of(self.warm.warm_uid)

    def handle(self, line: bytes) -> JobResult:
        job_id = None
        try:
            job = json.loads(line)
            job_id = job.get("id")
            if self.spent:  # never run: the host sends it again to a fresh sandbox
                return {"id": job_id, "ok": False, "refused": True, "error": self.spent, "phases": []}
            result = self.run_job(job)
        except Exception as error:  # the runner must survive anything a job does
            self.spend("a job failed")
            return {"id": job_id, "ok": False, "error": f"{type(error).__name__}: {error}", "phases": []}
        statuses = {run["status"] for phase in result["phases"] for run in phase["runs"]}
        spending = sorted(statuses & set(self.options.spent_on))
        if spending:
            self.spend(f"a program ended in {spending[0]}")
        return result

    def spend(self, why: str) -> None:
        """Refuse every later job (only where the host asked for it: a sandbox that is then replaced)."""
        if not self.spent and self.options.spent_on:
            self.spent = f"sandbox spent: {why}"

    def export_to(self, job: Job) -> str | None:
        """Where the job's artifacts go for the host: "b64" (in the result), a folder, or nowhere (None)."""
        if not job.get("export"):
            return None
        return self.options.export_dir or "b64"

    def run_job(self, job: Job) -> JobResult:
        workdir = job.get("workdir", "/app")
        if job.get("reset", True):
            self.reset(workdir)
        self.write_files(workdir, job.get("files", []))
        phases_out: list[PhaseRuns] = []
        artifacts = None
        for phase in job.get("phases", []):
            phase.setdefault("cwd", workdir)
            runs = [self.run_phase(phase) for _ in range(max(1, int(phase.get("repeat", 1))))]
            phases_out.append({"name": phase.get("name", "run"), "runs": runs})
            succeeded = all(run["status"] == "ok" for run in runs)
            if phase.get("name") == job.get("artifacts_after"):
                # before the program runs: what it does to its own binary never reaches a cache; the
                # host keeps only a phase's artifacts that ended ok (no export of a failed compile's)
                export = self.export_to(job) if succeeded else None
                artifacts = collect_artifacts(workdir, job.get("artifacts", []), export)
            if phase.get("stop_unless_ok") and not succeeded:
                break
        if artifacts is None:
            artifacts = collect_artifacts(workdir, job.get("artifacts", []), self.export_to(job))
        return {"id": job.get("id"), "ok": True, "error": "", "phases": phases_out, "artifacts": artifacts}

    # -- workspace ---------------------------------------------------------------------------------

    def reset(self, workdir: str) -> None:
        # (every phase already ended with kill_all: nothing of the previous program is alive here)
        for directory in [workdir, *self.options.scratch]:
            clear_directory(directory)
            self.give_to_sandbox_user(directory, mode=0o1777 if directory != workdir else 0o755)
        home = os.environ.get("HOME")
        if home and not os.path.isdir(home):
            os.makedirs(home, exist_ok=True)
            self.give_to_sandbox_user(home, mode=0o755)

    def write_files(self, workdir: str, files: list[JobFile]) -> None:
        root = os.path.realpath(workdir)
        for entry in files:
            target = os.path.realpath(os.path.join(root, entry["path"]))
            if not (target == root or target.startswith(root + os.sep)):
                raise ValueError(f"file path escapes the workdir: {entry['path']!r}")
            self.make_parents(root, os.path.dirname(target))
            data = base64.b64decode(entry["b64"]) if "b64" in entry else entry.get("text", "").encode("utf-8")
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                write_all(fd, data)
                os.fchmod(fd, int(entry.get("mode", 0o644)))
                if self.options.uid is not None:
                    os.fchown(fd, self.options.uid, self.options.gid)
            finally:
                os.close(fd)

    def make_parents(self, root: str, directory: str) -> None:
        missing = []
        while directory != root and not os.path.isdir(directory):
            missing.append(directory)
            directory = os.path.dirname(directory)
        for path in reversed(missing):
            os.mkdir(path)
            self.give_to_sandbox_user(path)

    def give_to_sandbox_user(self, path: str, mode: int | None = None) -> None:
        if mode is not None:
            os.chmod(path, mode)
        if self.options.uid is not None:
            os.chown(path, self.options.uid, self.options.gid)

    # -- one run -----------------------------------------------------------------------------------

    def run_phase(self, phase: Phase) -> RawRun:
        """One run of the phase: a compile a warm compiler can answer, by it (warm.py says when it may);
        otherwise as ``run_judged`` runs it."""
        if self.warm is None or not ("warm" in phase or "seed" in phase):
            return self.run_judged(phase)
        started = time.monotonic()
        run = self.warm.compile(phase, self.run_judged)
        # The compile's own wall stays the compiler's; what the runner held the core for besides is said
        # apart (its CPU is charged to the compile's where warm.py says so): a seed or a server's start
        # took seconds that no row's wall time showed, and an audit's timeline read them as idle cores.
        beyond_s = time.monotonic() - started - run["wall_s"]
        if beyond_s > 0:
            run["setup_wall_s"] = round(beyond_s, 6)
        return run

    def run_judged(self, phase: Phase) -> RawRun:
        """One run of the phase, judged; an unexplained SIGKILL is confirmed by a second run first.

        A SIGKILL that neither our watchdog nor a limit of ours sent is the program's own (``kill -9 $$``)
        or an outsider's: its container or worker being killed while this runner lives on for a moment,
        the kernel's OOM killer, another sandbox's cleanup of a uid it shares. The kernel keeps no sender
        for a SIGKILL, so the run itself cannot tell; the program can: its own kill comes again on a
        second run. An outsider's is a failure of ours (``sandbox_error``), never the program's verdict,
        and so is a second kill while the kernel's OOM killer was at work (memory short on the machine
        kills again; the program's own memory shows in its verdict, memory_limit, before this)."""
        run = self.run_once(phase)
        if not killed_unexplained(run):
            return run
        ooms = oom_kills()
        again = self.run_once(phase)
        if not killed_unexplained(again):
            if exit_status_varies(run, again):
                return run
            return killed_from_outside(run, "a second run was not killed")
        if oom_kills() != ooms:
            return killed_from_outside(run, "the kernel's OOM killer killed during the second run")
        return run

    def run_once(self, phase: Phase) -> RawRun:
        limits = phase.get("limits", {})
        argv = [str(arg) for arg in phase["argv"]]
        env = {str(k): str(v) for k, v in phase.get("env", {}).items()}
        executable = self.resolve(argv[0], env.get("PATH", os.defpath), phase["cwd"])
        if executable is None:
            return failed_run(argv, "exec_failed", f"command not found: {argv[0]}")
        started = time.monotonic()
        try:
            child = Child.start(executable, argv, env, phase.get("cwd", "/app"), limits, self.options, phase)
        except OSError as error:
            return failed_run(argv, "exec_failed", f"cannot execute {argv[0]}: {error.strerror}")
        try:
            outcome = child.supervise(phase.get("stdin", "").encode("utf-8"), limits, started)
        finally:
            child.close()
            self.kill_all(child.pid)
        return judge(argv, outcome, limits)

    def spawn_server(self, argv, env, cwd, limits, memory_rlimit, uid) -> tuple:
        """A warm compiler's server (warm.py), started as a program is, but as ``uid``, without a process
        limit: (pid, its stdin, stdout and stderr)."""
        executable = self.resolve(argv[0], env.get("PATH", os.defpath), cwd)
        if executable is None:
            raise OSError(errno.ENOENT, f"command not found: {argv[0]}")
        options = argparse.Namespace(**{**vars(self.options), "uid": uid, "gid": uid, "rlimit_nproc": False})
        child = Child.spawn_through_helper(executable, argv, env, cwd, limits, options, memory_rlimit)
        return child.pid, child.fds["stdin"], child.fds["stdout"], child.fds["stderr"]

    def resolve(self, command: str, search_path: str, cwd: str) -> str | None:
        if "/" in command:
            path = os.path.join(cwd, command)
            return path if os.access(path, os.X_OK) else None
        key = (command, search_path)
        if key not in self.path_cache:
            self.path_cache[key] = shutil.which(command, path=search_path)
        return self.path_cache[key]

    # -- killing trees -----------------------------------------------------------------------------

    def kill_all(self, group: int | None = None) -> None:
        """Kill every process the programs left behind, detached or not, then reap what is ours."""
        mode = self.options.kill
        if mode == "uid":
            kill_every_process_of(self.options.uid)
        elif mode == "all-in-namespace":
            kill_all_but_me()
        elif group is not None:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        reap_zombies()
        if self.options.clear_ipc:
            clear_sysv_ipc(self.options.uid, self.options.gid)


class Child:
    """A forked program: own session, rlimits, pipes; exits are watched through a pidfd."""

    def __init__(self, pid: int, stdin_fd: int, stdout_fd: int, stderr_fd: int) -> None:
        self.pid = pid
        self.fds: dict[str, int | None] = {"stdin": stdin_fd, "stdout": stdout_fd, "stderr": stderr_fd}

    @classmethod
    def start(cls, executable, argv, env, cwd, limits, options, phase) -> Child:
        memory_rlimit = phase.get("memory_rlimit", DEFAULT_MEMORY_RLIMIT)
        if options.spawn_helper:
            return cls.spawn_through_helper(executable, argv, env, cwd, limits, options, memory_rlimit)
        if options.uid is not None and int(limits.get("memory_mib", 1024)) >= FAST_SPAWN_MIN_MEMORY_MIB:
            return cls.spawn_fast(executable, argv, env, cwd, limits, options, memory_rlimit)
        return cls.spawn_forked(executable, argv, env, cwd, limits, options, memory_rlimit)

    @classmethod
    def spawn_through_helper(cls, executable, argv, env, cwd, limits, options, memory_rlimit) -> Child:
        """posix_spawn (a vfork and an exec) of the spawn helper (become.c), which closes the runner's
        descriptors on exec, changes to ``cwd``, sets the limits, switches to the sandbox uid and execs
        the program, behind the wall it inherits from this runner: ~0.55 ms of CPU per start of
        /bin/true (0.4 ms without the helper), where Popen switching user itself forks this process
        (~2.4 ms), and one call here where Popen's Python took ~0.3 ms. CPU counts from the program's
        start, since the helper has just begun."""
        theirs, ours = stdio_pipes()
        report_r, report_w = os.pipe()  # the helper's errno, if it fails; end of file once the program runs
        wanted = wanted_limits(limits, memory_rlimit, with_cpu=True, with_processes=options.rlimit_nproc)
        spec = ",".join(f"{which}:{soft}:{hard}" for which, soft, hard in wanted) or "-"
        who = ["-", "-"] if options.uid is None else [str(options.uid), str(options.gid)]
        reset_peak_rss()
        try:
            # the helper's end stays open across its exec (it marks it close-on-exec itself); this runner
            # has no other thread that could start a process meanwhile and inherit it
            os.set_inheritable(report_w, True)
            pid = os.posix_spawn(
                options.spawn_helper,
                [options.spawn_helper, str(report_w), *who, spec, cwd, executable, *argv],
                env,
                file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(theirs)],
                setsid=True,  # a session and process group of its own: kill_group reaches its tree
                setsigmask=(),
                setsigdef=SPAWN_DEFAULT_SIGNALS,  # this Python ignores them; a program must not
            )
        except OSError:
            for fd in (*ours, report_r):
                os.close(fd)
            raise
        finally:
            for fd in (*theirs, report_w):
                os.close(fd)
        failure = exec_failure(report_r, pid, ours)
        if failure:  # it never became the program: fail as Popen would
            number = int(failure) if failure.isdigit() else errno.EIO
            raise OSError(number, os.strerror(number))
        return cls(pid, *ours)

    @classmethod
    def spawn_fast(cls, executable, argv, env, cwd, limits, options, memory_rlimit) -> Child:
        """Popen switching user (no Python in the child, but CPython forks rather than vforks once a user
        is set: ~2.4 ms of CPU per start, the spawn helper's ~0.9 ms; ~5 ms from spawn_forked).

        Only as root: the limits are set on the runner itself around the spawn (the child inherits them)
        and restored afterwards, which needs CAP_SYS_RESOURCE. CPU is set on the child with prlimit
        (the runner's own CPU time must not count) and also polled.
        """
        theirs, ours = stdio_pipes()
        saved = apply_limits(
            limits, memory_rlimit, with_cpu=False, with_processes=options.rlimit_nproc, soft_only=True
        )
        try:
            process = popen_detached(
                argv,
                executable,
                theirs,
                cwd,
                env,
                user=options.uid,
                group=options.gid,
                extra_groups=[],
            )
        finally:
            restore_limits(saved)
            for fd in theirs:
                os.close(fd)
        # Clamp the hard limits too (so the program cannot raise its soft ones back), and add CPU.
        try:
            for which, value, hard in wanted_limits(
                limits, memory_rlimit, with_cpu=True, with_processes=options.rlimit_nproc
            ):
                resource.prlimit(process.pid, which, (value, hard))
        except OSError:
            pass  # already gone
        return cls(process.pid, *ours)

    @classmethod
    def spawn_forked(cls, executable, argv, env, cwd, limits, options, memory_rlimit) -> Child:
        theirs, ours = stdio_pipes()
        report_r, report_w = os.pipe()  # exec failures travel back here (close-on-exec: empty = success)
        pid = os.fork()
        if pid == 0:  # child: never return
            try:
                for fd in (*ours, report_r):
                    os.close(fd)
                for target, fd in enumerate(theirs):
                    os.dup2(fd, target)
                prepare_child(cwd, limits, options, memory_rlimit)
                os.execve(executable, argv, env)
            except BaseException as error:  # noqa: BLE001  (report anything, then die)
                try:
                    os.write(report_w, f"{type(error).__name__}: {error}".encode("utf-8", "replace"))
                finally:
                    os._exit(127)
        for fd in (*theirs, report_w):
            os.close(fd)
        failure = exec_failure(report_r, pid, ours)
        if failure:
            raise OSError(errno.ENOEXEC, failure.decode("utf-8", "replace"))
        return cls(pid, *ours)

    def supervise(self, stdin_bytes: bytes, limits: PhaseLimits, started: float) -> dict:
        """Feed stdin, collect stdout and stderr (cut at the cap), and wait for the exit, the wall limit or
        the CPU limit. The runner wakes for output and for the exit (a pidfd), and looks at the CPU time
        every CPU_POLL_S, never for each chunk of output."""
        cap = int(limits.get("output_bytes", 1 << 20))
        wall_s = float(limits.get("wall_s", 10.0))
        cpu_s = float(limits.get("cpu_s", 10.0))
        buffers = {"stdout": bytearray(), "stderr": bytearray()}
        truncated = {"stdout": False, "stderr": False}
        poller = select.poll()
        pidfd = open_pidfd(self.pid)
        exited = pidfd is None  # without a pidfd nothing wakes us at the exit: look at every pass, often
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        names = {}
        for name in ("stdout", "stderr"):
            os.set_blocking(self.fd(name), False)
            poller.register(self.fd(name), select.POLLIN)
            names[self.fd(name)] = name
        pending = memoryview(stdin_bytes)
        if pending:
            os.set_blocking(self.fd("stdin"), False)
            poller.register(self.fd("stdin"), select.POLLOUT)
            names[self.fd("stdin")] = "stdin"
        else:
            self.close_fd("stdin")
        killed_for = None
        status = None
        cpu_checked = started
        try:
            while status is None:
                now = time.monotonic()
                remaining = started + wall_s - now
                if remaining <= 0:
                    killed_for = "wall_time_limit"
                    break
                # RLIMIT_CPU only has whole seconds: the CPU time is polled too, every CPU_POLL_S
                wait_s = min(remaining, max(0.0, cpu_checked + CPU_POLL_S - now))
                if exited:
                    wait_s = min(wait_s, EXIT_POLL_S)
                for fd, _ in poller.poll(math.ceil(wait_s * 1000)):
                    if fd == pidfd:
                        poller.unregister(fd)
                        exited = True
                    elif names[fd] == "stdin":
                        try:
                            written = os.write(fd, pending[:READ_CHUNK_BYTES])
                            pending = pending[written:]
                        except (BrokenPipeError, OSError):
                            pending = pending[:0]
                        if not pending:
                            poller.unregister(fd)
                            self.close_fd("stdin")
                    else:
                        chunk = read_some(fd)
                        if chunk is None:
                            continue
                        if not chunk:
                            poller.unregister(fd)
                            continue
                        name = names[fd]
                        room = cap - len(buffers[name])
                        buffers[name] += chunk[: max(room, 0)]
                        if len(chunk) > room:
                            truncated[name] = True
                            killed_for = "output_limit"
                if exited:
                    status = try_wait(self.pid)
                if killed_for:
                    break
                now = time.monotonic()
                if status is None and now - cpu_checked >= CPU_POLL_S:
                    cpu_checked = now
                    if cpu_used(self.pid) > cpu_s:
                        killed_for = "cpu_time_limit"
                        break
            if status is None:
                kill_group(self.pid)
                status = wait(self.pid)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        wall = time.monotonic() - started
        # The program is gone; what a detached child still holds open is read without waiting for it.
        drain(self.fds, buffers, truncated, cap)
        _, wait_status, usage = status
        return {
            "wait_status": wait_status,
            "usage": usage,
            "wall_s": wall,
            "stdout": bytes(buffers["stdout"]),
            "stderr": bytes(buffers["stderr"]),
            "truncated": truncated,
            "killed_for": killed_for,
        }

    def fd(self, name: str) -> int:
        fd = self.fds[name]
        assert fd is not None, f"{name} already closed"
        return fd

    def close_fd(self, name: str) -> None:
        fd = self.fds.get(name)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
            self.fds[name] = None

    def close(self) -> None:
        for name in list(self.fds):
            self.close_fd(name)


def stdio_pipes() -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """Pipes for a child's standard streams: (its stdin, stdout, stderr ends), (ours: stdin to write,
    stdout and stderr to read)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    return (in_r, out_w, err_w), (in_w, out_r, err_r)


def exec_failure(report_r: int, pid: int, ours: tuple[int, ...]) -> bytes:
    """Wait until the child has exec'd: end of file on its close-on-exec report pipe, and b"". Otherwise
    what it reported, with the child reaped and our ends of its pipes closed."""
    try:
        failure = read_all(report_r)
    finally:
        os.close(report_r)
    if failure:
        wait(pid)
        for fd in ours:
            os.close(fd)
    return failure


def reset_peak_rss() -> None:
    """Lower this process's peak RSS to its current RSS before a vfork: the child shares our memory until
    it execs, and the kernel then folds that memory's peak into the child's ``ru_maxrss``. Without this a
    program's peak memory read the runner's own peak so far (17.7 MiB for an empty C program, and more
    after a large job) instead of the runner's current size (9 MiB, the floor a fork gives too)."""
    # Linux >= 4.0; some kernels (gVisor) have no clear_refs
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "wb", buffering=0) as refs:
        refs.write(b"5")


def popen_detached(argv, executable, stdio, cwd, env, **extra) -> subprocess.Popen:
    """The program (or the spawn helper) in a session of its own, with only ``stdio`` and ``extra``'s
    pass_fds open; reaped by us with wait4, never by Popen."""
    stdin, stdout, stderr = stdio
    process = subprocess.Popen(
        argv,
        executable=executable,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        cwd=cwd,
        env=env,
        start_new_session=True,
        close_fds=True,
        **extra,
    )
    process.returncode = 0  # keeps Popen from ever waiting on it
    return process


def prepare_child(cwd: str, limits: dict, options: argparse.Namespace, memory_rlimit: str) -> None:
    os.setsid()
    os.chdir(cwd)
    for number in range(1, 65):  # a clean signal state: the runner's ignores must not leak
        try:
            if number not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    apply_limits(limits, memory_rlimit, with_cpu=True, with_processes=options.rlimit_nproc)
    if options.uid is not None:
        os.setgroups([])
        os.setgid(options.gid)
        os.setuid(options.uid)


def cpu_seconds_limit(limits: dict) -> int:
    return max(1, math.ceil(float(limits.get("cpu_s", 10))))


def wanted_limits(limits: dict, memory_rlimit: str, with_cpu: bool, with_processes: bool) -> list:
    """(resource, soft, hard) for a phase; CPU gets one second of grace between SIGXCPU and SIGKILL."""
    memory_bytes = int(limits.get("memory_mib", 1024)) << 20
    file_size = int(limits.get("file_size_bytes", 64 << 20))
    wanted = [(resource.RLIMIT_FSIZE, file_size, file_size), (resource.RLIMIT_CORE, 0, 0)]
    if memory_rlimit == "as":
        wanted.append((resource.RLIMIT_AS, memory_bytes, memory_bytes))
    elif memory_rlimit == "data":
        wanted.append((resource.RLIMIT_DATA, memory_bytes, memory_bytes))
    if with_cpu:
        wanted.append((resource.RLIMIT_CPU, cpu_seconds_limit(limits), cpu_seconds_limit(limits) + 1))
    if with_processes:
        processes = int(limits.get("processes", 64))
        wanted.append((resource.RLIMIT_NPROC, processes, processes))
    return wanted


def apply_limits(
    limits: dict, memory_rlimit: str, with_cpu: bool, with_processes: bool, soft_only: bool = False
):
    """Set the phase's rlimits on this process; return what to restore (soft_only keeps hard limits,
    since some kernels, gVisor among them, never let even root raise a hard limit again)."""
    saved = []
    for which, soft, hard in wanted_limits(limits, memory_rlimit, with_cpu, with_processes):
        previous = resource.getrlimit(which)
        saved.append((which, previous))
        if soft_only:
            ceiling = previous[1]
            resource.setrlimit(
                which, (soft if ceiling == resource.RLIM_INFINITY else min(soft, ceiling), ceiling)
            )
        else:
            resource.setrlimit(which, (soft, hard))
    return saved


def restore_limits(saved: list) -> None:
    for which, previous in reversed(saved):
        resource.setrlimit(which, previous)


def judge(argv: list[str], outcome: dict, limits: PhaseLimits) -> RawRun:
    usage = outcome["usage"]
    wait_status = outcome["wait_status"]
    exit_code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
    signal_number = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
    signal_name = signal_label(signal_number)
    cpu = usage.ru_utime + usage.ru_stime
    cpu_limit = float(limits.get("cpu_s", 10))
    streams = {**as_text("stdout", outcome["stdout"]), **as_text("stderr", outcome["stderr"])}
    stderr_text = streams["stderr"]
    max_rss_kib = int(usage.ru_maxrss)
    memory_kib = int(limits.get("memory_mib", 1024)) * 1024
    killed_for = outcome["killed_for"]
    if killed_for:
        status, detail = killed_for, describe_kill(killed_for, limits)
    elif signal_number == signal.SIGXCPU or (
        (exit_code or signal_number) and reached_cpu_limit(cpu, cpu_limit, stderr_text)
    ):
        # The CPU budget is the tree's (the poll above counts waited-for children): a compiler driver or
        # a shell whose child RLIMIT_CPU killed fails in its own way (g++: "internal compiler error").
        status, detail = "cpu_time_limit", describe_kill("cpu_time_limit", limits)
    elif signal_number == signal.SIGXFSZ:
        status, detail = "output_limit", f"a file grew past {limits.get('file_size_bytes')} bytes"
    elif (exit_code or signal_number) and (
        max_rss_kib >= MEMORY_NEAR_LIMIT_FRACTION * memory_kib or any(m in stderr_text for m in OOM_MARKERS)
    ):
        status, detail = "memory_limit", f"ran out of memory (limit {limits.get('memory_mib')} MiB)"
    elif signal_number is not None:
        status, detail = "signal", f"killed by {signal_name}"
    elif exit_code:
        status, detail = "runtime_error", f"exit status {exit_code}"
    else:
        status, detail = "ok", ""
    run: RawRun = {
        "argv": argv,
        "stdout": streams["stdout"],
        "stderr": streams["stderr"],
        "stdout_truncated": outcome["truncated"]["stdout"],
        "stderr_truncated": outcome["truncated"]["stderr"],
        "exit_code": exit_code,
        "signal": signal_name,
        "cpu_user_s": round(usage.ru_utime, 6),
        "cpu_sys_s": round(usage.ru_stime, 6),
        "wall_s": round(outcome["wall_s"], 6),
        "max_rss_kib": max_rss_kib,
        "status": status,
        "detail": detail,
    }
    if "stdout_b64" in streams:
        run["stdout_b64"] = streams["stdout_b64"]
    if "stderr_b64" in streams:
        run["stderr_b64"] = streams["stderr_b64"]
    return run


def killed_unexplained(run: RawRun) -> bool:
    """Ended by a SIGKILL that ``judge`` could not lay at a limit's door (ours all set ``killed_for``;
    RLIMIT_CPU's SIGKILL leaves the CPU time at its limit; an allocation failure shows in the memory):
    the program's, or a child's as a shell (exit status 128 + 9) or a compiler driver reports it."""
    if run["status"] == "signal":
        return run["signal"] == "SIGKILL"
    return run["status"] == "runtime_error" and (
        run["exit_code"] == SHELL_SIGNAL_EXIT_BASE + signal.SIGKILL or DRIVER_KILLED_MESSAGE in run["stderr"]
    )


def exit_status_varies(first: RawRun, again: RawRun) -> bool:
    """Exit status 128 + SIGKILL, then another error status: the program chose its own status
    (``sys.exit`` of a random number) and chose another the second time. A child killed from outside
    under a shell runs through the second time, so its first status stays a failure of ours."""
    return first["status"] == "runtime_error" and again["status"] == "runtime_error"


def killed_from_outside(run: RawRun, why: str) -> RawRun:
    """The facts of a run some outsider killed, as a failure of ours."""
    detail = (
        f"killed by SIGKILL from outside the sandbox, not by its limits nor by the program ({why}): retry "
        "it, and check the machine (its memory, a sandbox uid shared with another container)"
    )
    return {**run, "status": "sandbox_error", "detail": detail}


def oom_kills() -> int | None:
    """How many processes the kernel's OOM killer has killed since boot (None where /proc has no count:
    before Linux 4.13, some sandbox kernels)."""
    try:
        with open("/proc/vmstat", "rb") as handle:
            for line in handle:
                if line.startswith(b"oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def as_text(name: str, data: bytes) -> dict:
    """A stream as text, and as base64 (``<name>_b64``) too when it is not valid UTF-8: its text then
    shows U+FFFD in place of the bytes, and only the bytes say what the program wrote."""
    try:
        return {name: data.decode("utf-8")}
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        return {name: text, f"{name}_b64": base64.b64encode(data).decode("ascii")}


def reached_cpu_limit(cpu: float, cpu_limit: float, stderr_text: str) -> bool:
    """Whether a failed run used up its CPU budget. The kernel enforces RLIMIT_CPU on its tick-sampled
    CPU time, while rusage reports the precise time, and under contention the ticks overcharge a process
    that runs in short bursts: g++ said "CPU time limit exceeded signal terminated program cc1plus" (a
    1 s limit) with 0.76-0.95 s read here on a 2-core machine running three busy loops. Within that slack
    the driver's or shell's own report of the signal decides."""
    if cpu >= cpu_limit:
        return True
    return cpu >= RLIMIT_TICK_SLACK_FRACTION * cpu_limit and XCPU_MESSAGE in stderr_text


def describe_kill(reason: str, limits: PhaseLimits) -> str:
    if reason == "wall_time_limit":
        return f"killed after {limits.get('wall_s')} s of wall time"
    if reason == "cpu_time_limit":
        return f"killed after {limits.get('cpu_s')} s of CPU time"
    return f"output passed {limits.get('output_bytes')} bytes on a stream: cut and killed"


def failed_run(argv: list[str], status: str, detail: str) -> RawRun:
    return {
        "argv": argv,
        "stdout": "",
        "stderr": "",
        "stdout_truncated": False,
        "stderr_truncated": False,
        "exit_code": None,
        "signal": None,
        "cpu_user_s": 0.0,
        "cpu_sys_s": 0.0,
        "wall_s": 0.0,
        "max_rss_kib": 0,
        "status": status,
        "detail": detail,
    }


def signal_label(number: int | None) -> str | None:
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


# -- processes --------------------------------------------------------------------------------------


def try_wait(pid: int):
    try:
        waited, status, usage = os.wait4(pid, os.WNOHANG)
    except ChildProcessError:
        return (pid, 0, resource.getrusage(resource.RUSAGE_CHILDREN))
    return None if waited == 0 else (waited, status, usage)


def wait(pid: int):
    while True:
        try:
            return os.wait4(pid, 0)
        except InterruptedError:
            continue


def open_pidfd(pid: int) -> int | None:
    """A descriptor that polls readable when the process exits (Linux >= 5.3, Python >= 3.9), or None."""
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:  # a kernel (or seccomp profile) without it
        return None


def read_small_file(path: str) -> bytes | None:
    """A small file's bytes (a /proc entry) in three system calls, or None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, SMALL_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


def kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(OSError):
            target()


def cpu_used(pid: int) -> float:
    """CPU seconds of a live process and its waited-for children, from /proc (0 if it is gone)."""
    data = read_small_file(f"/proc/{pid}/stat")
    if data is None:
        return 0.0
    fields = data.rsplit(b")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / CLOCK_TICKS_PER_S


def kill_every_process_of(uid: int) -> None:
    """Kill every live process of `uid` in this PID namespace: a helper that becomes `uid` kill(-1)s, until
    /proc shows none.

    The /proc check, not kill()'s ESRCH, decides when we are done: some kernels (gVisor) report success
    with nothing left to signal, and zombies keep kill() succeeding until their reaper collects them.

    kill(-1) also reaches the PID namespaces nested in ours, and a reserved uid is unique only among the
    sandboxes that share one /tmp: an unsafe-local runner on a host whose containers run sandboxes of
    their own may share its uid with their programs, and its kill(-1) killed them mid-run (stored as their
    "signal" verdict). Where /proc shows the uid in a nested namespace, the helper kills our pids one by one.
    """
    deadline = time.monotonic() + KILL_DEADLINE_S
    while time.monotonic() < deadline:
        elsewhere: list[int] = []
        ours = live_processes(lambda owner: owner == uid, nested=elsewhere)
        if not ours:
            return
        helper = os.fork()
        if helper == 0:
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                if elsewhere:
                    for pid in ours:
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                else:
                    for _ in range(KILL_PASSES):  # a fork bomb may fork between passes; SIGKILL wins quickly
                        os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(helper, 0)
        reap_zombies()


def kill_all_but_me() -> None:
    """In a private PID namespace: kill(-1) reaches every process except PID 1 (the reaper) and us."""
    deadline = time.monotonic() + KILL_DEADLINE_S
    me = os.getpid()
    while live_processes(lambda owner: True, exclude=(1, me)) and time.monotonic() < deadline:
        for _ in range(KILL_PASSES):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                break
        reap_zombies()


def clear_sysv_ipc(uid: int | None, gid: int | None) -> None:
    """Remove the System V shared memory, queues and semaphores a program left: they outlive processes,
    and the next program (or the next run of a determinism check) would find them by key. `ipcrm -a` runs
    as the programs' uid (their objects are theirs; a root runner without CAP_SYS_ADMIN may not remove
    them), and only when /proc shows any. Objects that stay are a failure of ours: the job fails."""
    if not sysv_ipc_left():
        return
    ipcrm = shutil.which("ipcrm", path="/usr/bin:/bin")
    if ipcrm is None:
        raise RuntimeError("a program left System V IPC objects and ipcrm (util-linux) is missing")
    # without --uid the runner already is the programs' uid: no switch (None), else no extra groups
    no_groups: list[int] | None = None if uid is None else []
    subprocess.run(
        [ipcrm, "--all"],
        capture_output=True,
        timeout=KILL_DEADLINE_S,
        user=uid,
        group=gid,
        extra_groups=no_groups,
    )
    if sysv_ipc_left():
        raise RuntimeError("System V IPC objects a program left could not be removed")


def sysv_ipc_left() -> bool:
    """Does this IPC namespace hold any System V object (a table with more than its header line)?"""
    for table in ("/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem"):
        data = read_small_file(table)
        if data is not None and data.count(b"\n") > 1:
            return True
    return False


def live_processes(owner_matches, exclude: tuple = (), nested: list | None = None) -> list:
    """Pids in /proc owned by a matching uid that are not zombies (exiting ones still count). With
    ``nested`` (a list), those of PID namespaces nested in /proc's own go there instead: their NSpid
    line has one pid per level (kernels without the line count as ours).

    The owner of /proc/<pid> is the process's effective uid: one stat per process, and /proc/<pid>/status
    is read only for the few that match.
    """
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in exclude:
            continue
        try:
            if not owner_matches(os.stat(f"/proc/{name}").st_uid):
                continue
            with open(f"/proc/{name}/status", "rb") as handle:
                status = handle.read()
        except OSError:
            continue
        state = status.split(b"State:", 1)[1].split()[0] if b"State:" in status else b"?"
        if state in (b"Z", b"X"):
            continue
        levels = status.split(b"NSpid:", 1)[1].split(b"\n", 1)[0].split() if b"NSpid:" in status else []
        (nested if nested is not None and len(levels) > 1 else found).append(int(name))
    return found


def reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def read_some(fd: int) -> bytes | None:
    try:
        return os.read(fd, READ_CHUNK_BYTES)
    except BlockingIOError:
        return None  # nothing right now (a spurious wake-up)
    except OSError:
        return b""


def read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, READ_CHUNK_BYTES)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def drain(fds: dict, buffers: dict, truncated: dict, cap: int) -> None:
    for name in ("stdout", "stderr"):
        fd = fds.get(name)
        if fd is None:
            continue
        while True:
            try:
                chunk = os.read(fd, READ_CHUNK_BYTES)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            room = cap - len(buffers[name])
            buffers[name] += chunk[: max(room, 0)]
            if len(chunk) > room:
                truncated[name] = True
                break


# -- files ------------------------------------------------------------------------------------------


def clear_directory(directory: str) -> None:
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)
        return
    for entry in entries:
        try:
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
            elif not remove_if_empty(entry.path):
                make_writable(entry.path)
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError as error:
            print(f"runner: cannot remove {entry.path}: {error}", file=sys.stderr)


def remove_if_empty(directory: str) -> bool:
    """One call for the usual case (an empty HOME), before rmtree's walk."""
    try:
        os.rmdir(directory)
    except OSError:
        return False
    return True


def make_writable(directory: str) -> None:
    # A program may chmod 000 its own directories; as their owner we can always undo it.
    for root, dirs, _ in os.walk(directory):
        for name in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, name), 0o755)


def collect_artifacts(workdir: str, patterns: list[str], export: str | None) -> Artifacts:
    """The artifacts' paths, hashes and modes; with ``export``, their bytes too: "b64" in each entry, or
    as files named by their sha256 in the folder ``export`` names."""
    if not patterns:
        return {"digest": None, "files": []}
    found = []
    for root, _, names in os.walk(workdir):
        for name in names:
            relative = os.path.relpath(os.path.join(root, name), workdir)
            if any(fnmatch.fnmatch(relative, pattern) for pattern in patterns):
                found.append(relative)
    files: list[ArtifactFile] = []
    for relative in sorted(found):
        path = os.path.join(workdir, relative)
        with open(path, "rb") as handle:
            data = handle.read()
        entry: ArtifactFile = {
            "path": relative,
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
            "mode": os.stat(path).st_mode & 0o777,
        }
        if export == "b64":
            entry["b64"] = base64.b64encode(data).decode("ascii")
        elif export is not None:
            export_file(export, entry["sha256"], data)
            entry["exported"] = True
        files.append(entry)
    if not files:
        return {"digest": None, "files": []}
    digest = hashlib.sha256(json.dumps([(f["path"], f["sha256"]) for f in files]).encode()).hexdigest()
    return {"digest": digest, "files": files}


def export_file(folder: str, sha256: str, data: bytes) -> None:
    """Write an artifact for the host as <folder>/<sha256>, whole or not at all (a rename). Written even
    where a file of that name is: a program sharing our uid may have put one there first."""
    target = os.path.join(folder, sha256)
    temporary = f"{target}.part"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
    os.rename(temporary, target)


if __name__ == "__main__":
    main()
