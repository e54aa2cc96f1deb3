"""The local sandbox: bubblewrap around one long-lived in-sandbox runner per worker.

This file is only how the runner starts and where its paths are; compile, run, verdicts and caches are
the runner core's (sandboxes/core.py). Start-up (bwrap + python3, ~30 ms) is paid once per worker and
process: a backend's idle runners stay warm for the next backend (`WarmRunners`); each program then costs
a fork/exec inside the sandbox. The sandbox sees a read-only /usr, /etc
without shadow files, its own writable tmpfs /app and /tmp, no network, its own PID, IPC and UTS
namespaces, and a fixed environment. As root it runs programs under a reserved uid (RLIMIT_NPROC works,
kill-by-uid reaches detached children, and the root runner is out of the programs' reach); as a normal
user it adds a user namespace and the runner kills everything in the PID namespace after each phase.
Tools are the host's, as the sandbox PATH sees them. The runner starts behind the spawn helper's second
wall, a seccomp filter every program and compiler inherits, and starts each of them through the helper
(sandboxes/spawn_helper.py): without a C compiler to build it the backend refuses to run untrusted code
(docs/sandboxes.md, "The second wall").

``unsafe=True`` without bwrap runs the same runner directly on the host ("unsafe-local"): trusted code
only; its /app and /tmp are a scratch folder per runner (`PathMap`).
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import queue
import selectors
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, cast

from pipeline.errors import SandboxUnavailable
from pipeline.records import RunRequest, content_id
from pipeline.stopping import track
from sandboxes.backends.registry import BackendSpec
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.core import RUNNER_DIR, PathMap, RunnerCore, SandboxCrash, WarmRunners, runner_env
from sandboxes.inner.protocol import Job, JobResult
from sandboxes.jobs import RUNNER_GRACE_S, encode_job
from sandboxes.languages import WORKDIR, spec_for
from sandboxes.spawn_helper import spawn_helper, wall_problem
from sandboxes.toolchains import find_tool, tool_version

NAME = "bwrap"
UNSAFE_NAME = "unsafe-local"  # what run ids record for --unsafe without bubblewrap: no sandbox at all
RUNNER_MOUNT = "/opt/surge-runner"
SPAWN_HELPER_MOUNT = "/opt/surge-spawn"  # sandboxes/spawn_helper.py's build, read-only
# The runner's export folder (compiled artifacts for the cache, as files): a host folder of its own under
# the compile cache, mode 0700, which programs running under a sandbox uid cannot open.
EXPORT_MOUNT = "/opt/surge-export"
SANDBOX_PYTHON = "/usr/bin/python3"
INSTALL_HINT = "apt-get install bubblewrap (or make setup)"
HELPER_HINT = (
    "apt-get install gcc libc6-dev; `gcc -static -nostdlib -ffreestanding sandboxes/inner/become.c` says why"
)

# Reserved uids for programs when we run as root; a flock per uid keeps concurrent sandboxes apart.
SANDBOX_UID_FIRST = 61000
SANDBOX_UID_COUNT = 1000
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "surge-sandbox-uids"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers")
SCRATCH_MIB = 1024  # tmpfs size of /app and /tmp each
# POSIX shared memory and semaphores (Python's multiprocessing, sem_open): bwrap's --dev leaves it root's
# and read-only; a tmpfs the runner clears before every program, like /tmp.
SHM_DIR = "/dev/shm"


class BwrapBackend(RunnerCore["BwrapLauncher"]):
    """The runner core over bubblewrap runners (see the module docstring)."""

    def __init__(self, unsafe: bool = False, workers: int = 1, cache_dir: Path | str | None = None) -> None:
        super().__init__(BwrapLauncher(unsafe=unsafe, cache_dir=cache_dir), workers)


class BwrapLauncher:
    """Starts runners under bwrap (or bare); every request runs in the same place: this host, one compile
    cache, one run memo."""

    def __init__(self, unsafe: bool = False, cache_dir: Path | str | None = None) -> None:
        self.bwrap = shutil.which("bwrap")
        if self.bwrap is None and not unsafe:
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed: refusing to run untrusted code", hint=INSTALL_HINT
            )
        if not Path(SANDBOX_PYTHON).is_file():
            raise SandboxUnavailable(
                f"{SANDBOX_PYTHON} is missing: the in-sandbox runner needs it",
                hint="apt-get install python3 (or make setup)",
            )
        self.name = NAME if self.bwrap else UNSAFE_NAME
        self.cache = CompileCache(cache_dir)
        if not unsafe and spawn_helper(self.cache.root) is None:
            raise SandboxUnavailable(
                "cannot build the spawn helper (sandboxes/inner/become.c) that puts up the sandbox's "
                "seccomp filter: refusing to run untrusted code without it",
                hint=HELPER_HINT,
            )
        self.memo = RunMemo()
        self.image_digest: str | None = None
        self.idle: queue.Queue[RunnerProcess] = queue.Queue()
        self.all_runners: list[RunnerProcess] = []

    @property
    def sandbox_uids(self) -> set[int]:
        """The reserved uids this backend's programs run under (empty when not root)."""
        return {runner.uid for runner in self.all_runners if runner.uid is not None}

    # -- the place every request runs in ---------------------------------------------------------

    def place(self, request: RunRequest) -> BwrapLauncher:
        return self

    def has_tool(self, tool: str) -> bool:
        return find_tool(tool) is not None

    def tool_version(self, tool: str) -> str | None:
        return tool_version(tool)

    def acquire(self) -> RunnerProcess:
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            pass
        runner = WARM_RUNNERS.take(self.warm_key()) if self.bwrap else None
        runner = runner or self.start_runner()
        self.all_runners.append(runner)
        return runner

    def release(self, runner: RunnerProcess, broken: bool) -> None:
        if broken:
            runner.close()
        else:
            self.idle.put(runner)

    def close(self) -> None:
        """Idle runners stay warm for the next backend of this process (bwrap only); the rest close."""
        kept = list(self.idle.queue) if self.bwrap else []
        for runner in kept:
            WARM_RUNNERS.give(self.warm_key(), runner)
        for runner in self.all_runners:
            if runner not in kept:
                runner.close()

    def warm_key(self) -> tuple[str, ...]:
        """What a runner's start depends on besides its reserved uid."""
        return (str(self.bwrap), str(spawn_helper(self.cache.root)))

    # -- starting a runner -----------------------------------------------------------------------

    def start_runner(self) -> RunnerProcess:
        uid, lock = reserve_uid() if os.getuid() == 0 else (None, None)
        runner_args = ["--uid", str(uid)] if uid is not None else ["--kill", "all-in-namespace"]
        helper = spawn_helper(self.cache.root)
        exports = new_export_folder(self.cache.root)
        if self.bwrap is None:
            return start_unsafe(uid, lock, helper, exports)
        runner_args += ["--export-dir", EXPORT_MOUNT]
        walled: list[str] = []  # the runner starts behind the helper's wall, which its programs inherit
        if helper is not None:
            runner_args += ["--spawn-helper", SPAWN_HELPER_MOUNT]
            walled = [SPAWN_HELPER_MOUNT, "--wall"]
        argv = [
            self.bwrap,
            *bwrap_mounts(),
            *(["--ro-bind", str(helper), SPAWN_HELPER_MOUNT] if helper is not None else []),
            "--bind",
            str(exports),
            EXPORT_MOUNT,
            *bwrap_namespaces(as_root=uid is not None),
            "--chdir",
            WORKDIR,
            *walled,
            SANDBOX_PYTHON,
            "-I",
            "-S",
            f"{RUNNER_MOUNT}/runner.py",
            "--scratch",
            "/tmp",
            "--scratch",
            SHM_DIR,
            "--clear-ipc",  # --unshare-ipc: the runner's IPC namespace is its programs' alone
            *runner_args,
        ]
        return RunnerProcess(argv, runner_env(), lock, None, uid, exports)


def new_export_folder(cache_root: Path) -> Path:
    """A runner's export folder, on the compile cache's file system (mode 0700: mkdtemp's)."""
    parent = cache_root / "exports"
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="runner-", dir=parent))


def start_unsafe(uid: int | None, lock: Any | None, helper: Path | None, exports: Path) -> RunnerProcess:
    scratch = Path(tempfile.mkdtemp(prefix="surge-unsafe-"))
    os.chmod(scratch, 0o755)
    for name in ("app", "tmp"):
        (scratch / name).mkdir()
    argv = [SANDBOX_PYTHON, "-I", "-S", str(RUNNER_DIR / "runner.py"), "--scratch", str(scratch / "tmp")]
    argv += ["--uid", str(uid)] if uid is not None else ["--kill", "group"]
    argv += ["--export-dir", str(exports)]
    if helper is not None:
        argv = [str(helper), "--wall", *argv, "--spawn-helper", str(helper)]
    env = {**runner_env(), "HOME": str(scratch / "tmp" / "home")}
    return RunnerProcess(argv, env, lock, scratch, uid, exports)


# A job opens one backend per batch, and each batch started its runner afresh: bwrap, then the runner's
# Python, ~32 ms of a core per batch, plus ~8 ms to close it. Its idle runners now wait for the next.
WARM_RUNNERS: WarmRunners[RunnerProcess] = WarmRunners(keep=max(2, os.cpu_count() or 1))


@functools.cache
def lasting_thread() -> ThreadPoolExecutor:
    """One thread for the life of the process, which starts every runner: bwrap's --die-with-parent
    follows the *thread* that started it (PR_SET_PDEATHSIG), and batch threads end while their runners
    stay warm. The runner still dies with the process."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="surge-runner-starter")


def forget_runners_in_child() -> None:
    """A forked child shares the warm runners' pipes with its parent and has none of its threads: it
    starts runners of its own, from a thread of its own."""
    WARM_RUNNERS.forget()
    lasting_thread.cache_clear()


os.register_at_fork(after_in_child=forget_runners_in_child)


def start_process(argv: list[str], env: dict[str, str], stderr: IO[bytes]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env, bufsize=0
    )


class RunnerProcess:
    """One bwrap (or bare) process running sandboxes/inner/runner.py; JSON lines in and out."""

    queue_ahead = True  # every job starts in a reset workspace with no process of the last one alive

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        uid_lock: Any | None,
        scratch: Path | None,
        uid: int | None,
        exports: Path | None = None,
    ) -> None:
        self.uid = uid
        self.exports = exports
        self.uid_lock = uid_lock
        self.scratch = scratch
        self.paths = PathMap(scratch)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the runner)
        self.process = lasting_thread().submit(start_process, argv, env, self.stderr).result()
        track(self)
        self.buffer = b""
        try:
            ready = self.read_line(RUNNER_GRACE_S)
            if not ready.get("ready"):
                raise SandboxCrash(f"runner did not start: {ready}")
        except SandboxCrash:
            self.close()
            raise

    def call(self, job: Job, timeout_s: float) -> JobResult:
        self.send(encode_job(job))
        return self.receive(timeout_s)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line)
        except (BrokenPipeError, OSError) as error:
            raise SandboxCrash(f"runner gone: {error}; {self.stderr_tail()}") from None

    def receive(self, timeout_s: float) -> JobResult:
        result = self.read_line(timeout_s)
        if not result.get("ok"):
            raise SandboxCrash(f"runner failed the job: {result.get('error')}")
        return cast(JobResult, result)  # a line the runner wrote: its protocol's result

    def read_line(self, timeout_s: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        # A line may be megabytes (a compile's binary, base64): its chunks (a pipe's 64 KiB each) are
        # kept apart and joined once, and only the newest is searched for the line's end. Appending each
        # to one bytes object, and searching all of it each time, cost ~0.4 s per 4 MB Rust binary.
        chunks, end = [self.buffer], self.buffer.find(b"\n")
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while end < 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    self.buffer = b"".join(chunks)
                    raise SandboxCrash(f"runner silent for {timeout_s:.0f} s; {self.stderr_tail()}")
                chunk = os.read(self.process.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise SandboxCrash(f"runner exited ({self.process.poll()}); {self.stderr_tail()}")
                chunks.append(chunk)
                end = chunk.find(b"\n")
        line, self.buffer = b"".join(chunks).split(b"\n", 1)
        return json.loads(line)

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].decode("utf-8", "replace").strip()

    def kill(self) -> None:
        """bwrap dies, and with it the sandbox's pid namespace: every program of the runner. A bare runner
        (unsafe-local, with a scratch folder) is left to end its program under its own watchdog: killed,
        it would leave the program running without its wall-time limit."""
        if self.scratch is None:
            self.process.kill()

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.process.poll() is None:
            if self.process.stdin:
                self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr.close()
        if self.uid_lock is not None:
            self.uid_lock.close()
        for folder in (self.scratch, self.exports):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def bwrap_mounts() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for directory in SYSTEM_DIRS:
        if os.path.islink(directory):
            args += ["--symlink", os.readlink(directory), directory]
        elif os.path.isdir(directory):
            args += ["--ro-bind", directory, directory]
    args += ["--ro-bind", "/etc", "/etc"]
    for secret in MASKED_SECRETS:
        if os.path.exists(secret):
            args += ["--ro-bind", "/dev/null", secret]
    size = str(SCRATCH_MIB << 20)
    args += [
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--size",
        size,
        "--tmpfs",
        "/app",
        "--size",
        size,
        "--tmpfs",
        "/tmp",
        "--perms",
        "1777",
        "--size",
        size,
        "--tmpfs",
        SHM_DIR,
    ]
    args += ["--perms", "0755", "--dir", "/opt", "--ro-bind", str(RUNNER_DIR), RUNNER_MOUNT]
    if shutil.which("python", path="/usr/local/bin:/usr/bin:/bin") is None:
        args += [
            "--perms",
            "0755",
            "--dir",
            "/opt/surge-bin",
            "--symlink",
            SANDBOX_PYTHON,
            "/opt/surge-bin/python",
        ]
    return args


def bwrap_namespaces(as_root: bool) -> list[str]:
    # As root we skip the user namespace on purpose: the runner stays real root so it can run programs
    # under a reserved uid (RLIMIT_NPROC is ignored for root, and kill-by-uid needs distinct uids).
    args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not as_root:
        args.append("--unshare-user")
    return [*args, "--die-with-parent", "--new-session", "--clearenv"] + [
        item for key, value in runner_env().items() for item in ("--setenv", key, value)
    ]


def reserve_uid() -> tuple[int, Any]:
    """A uid no other live sandbox uses, held by an flock until the runner closes."""
    UID_LOCK_DIR.mkdir(parents=True, exist_ok=True)
    for uid in range(SANDBOX_UID_FIRST, SANDBOX_UID_FIRST + SANDBOX_UID_COUNT):
        handle = open(UID_LOCK_DIR / f"{uid}.lock", "w")  # noqa: SIM115  (kept open: it is the lock)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        return uid, handle
    raise SandboxUnavailable("no free sandbox uid", hint=f"remove stale locks in {UID_LOCK_DIR}")


# -- what the pipeline asks before it runs anything (sandboxes/backends/registry.py) ------------------

MISSING_TOOL = "missing"  # a tool the sandbox PATH lacks: installing it makes a new run id


def host_tools_identity(request: RunRequest) -> str:
    """The version lines of the tools the request needs (its language spec's ``tools``), as the sandbox
    sees them; a missing tool counts as "missing", so installing it makes a new run instead of a stale
    ``toolchain_missing`` row."""
    tools = spec_for(request.program.language).tools(request.setting, request.profile)
    return content_id("tools", {tool: tool_version(tool) or MISSING_TOOL for tool in tools})


def recorded_name(unsafe: bool) -> str:
    """Without bubblewrap, --unsafe runs on the host, and the run id says so."""
    return UNSAFE_NAME if unsafe and shutil.which("bwrap") is None else NAME


def missing(unsafe: bool) -> str | None:
    return None if unsafe or shutil.which("bwrap") else "bubblewrap (bwrap) is not installed"


def bwrap_status() -> dict[str, Any]:
    """For `surge doctor`: can bwrap create its namespaces here, and do programs start behind the filter."""
    path = shutil.which("bwrap")
    if path is None:
        return {"available": False, "hint": "apt-get install bubblewrap (or `make setup`)"}
    probe = subprocess.run(
        [path, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    info = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    status: dict[str, Any] = {"available": probe.returncode == 0, "path": path, "version": info}
    status["summary"] = info
    if probe.returncode != 0:
        status["hint"] = f"bwrap cannot create namespaces here: {probe.stderr.strip()}"
        return status
    # Both sandboxes refuse untrusted code unless programs start behind the seccomp filter.
    problem = wall_problem(CompileCache().root)
    status["seccomp"] = not problem
    status["summary"] = info + ("" if problem else ", seccomp filter")
    if problem:
        status.update(available=False, hint=problem)
    return status


SPEC = BackendSpec(
    name=NAME,
    open=lambda unsafe, workers: BwrapBackend(unsafe=unsafe, workers=workers),
    identity=lambda: host_tools_identity,
    missing=missing,
    fix=f"{INSTALL_HINT}; trusted code only: add --unsafe",
    recorded_as=recorded_name,
    also_recorded_as=(UNSAFE_NAME,),
    status=bwrap_status,
)

__all__ = ["SPEC", "BwrapBackend", "BwrapLauncher", "SandboxCrash"]
