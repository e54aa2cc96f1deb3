"""The local sandbox: bubblewrap around one long-lived in-sandbox runner per worker.

Start-up (bwrap + python3, ~30 ms) is paid once per batch and worker; each program then costs a fork/exec
inside the sandbox. The sandbox sees a read-only /usr, /etc without shadow files, its own writable tmpfs
/app and /tmp, no network, its own PID, IPC and UTS namespaces, and a fixed environment. As root it runs
programs under a reserved uid (RLIMIT_NPROC works, kill-by-uid reaches detached children); as a normal
user it adds a user namespace and the runner kills everything in the PID namespace after each phase.

``unsafe=True`` without bwrap runs the same runner directly on the host ("unsafe-local"): trusted code only.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import selectors
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pipeline.errors import SandboxUnavailable
from pipeline.records import (
    Limits,
    PhaseResult,
    Provenance,
    RunRequest,
    RunResult,
    Verdict,
)
from sandboxes.compile_cache import CompileCache, RunMemo, cache_key
from sandboxes.languages import WORKDIR, LanguageSpec, spec_for
from sandboxes.profiles import SANDBOX_HOME, sandbox_env
from sandboxes.toolchains import find_tool, tool_version

RUNNER_DIR = Path(__file__).resolve().parent.parent / "inner"
RUNNER_MOUNT = "/opt/surge-runner"
SANDBOX_PYTHON = "/usr/bin/python3"
INSTALL_HINT = "apt-get install bubblewrap (or make setup)"
# Reserved uids for programs when we run as root; a flock per uid keeps concurrent sandboxes apart.
SANDBOX_UID_FIRST = 61000
SANDBOX_UID_COUNT = 1000
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "surge-sandbox-uids"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
MASKED_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers")
RUNNER_GRACE_S = 30.0  # on top of the phases' own wall limits before the runner itself is presumed hung
SCRATCH_MIB = 1024  # tmpfs size of /app and /tmp each


class SandboxCrash(Exception):
    """The runner process died or hung: the current program gets SANDBOX_ERROR, the next a new runner."""


class RunnerProcess:
    """One bwrap (or bare) process running sandboxes/inner/runner.py; JSON lines in and out."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        uid_lock: Any | None,
        scratch: Path | None,
        uid: int | None,
    ) -> None:
        self.uid = uid
        self.uid_lock = uid_lock
        self.scratch = scratch
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the runner)
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env, bufsize=0
        )
        self.buffer = b""
        ready = self.read_line(RUNNER_GRACE_S)
        if not ready.get("ready"):
            raise SandboxCrash(f"runner did not start: {ready}")

    def call(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(job).encode("utf-8") + b"\n")
        except (BrokenPipeError, OSError) as error:
            raise SandboxCrash(f"runner gone: {error}; {self.stderr_tail()}") from None
        result = self.read_line(timeout_s)
        if not result.get("ok"):
            raise SandboxCrash(f"runner failed the job: {result.get('error')}")
        return result

    def read_line(self, timeout_s: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise SandboxCrash(f"runner silent for {timeout_s:.0f} s; {self.stderr_tail()}")
                chunk = os.read(self.process.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise SandboxCrash(f"runner exited ({self.process.poll()}); {self.stderr_tail()}")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-2000:].decode("utf-8", "replace").strip()

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
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)


class BwrapBackend:
    """Backend protocol (sandboxes/backends/base.py) over bubblewrap; see the module docstring."""

    def __init__(self, unsafe: bool = False, workers: int = 1, cache_dir: Path | str | None = None) -> None:
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
        self.name = "bwrap" if self.bwrap else "unsafe-local"
        self.workers = max(1, workers)
        self.cache = CompileCache(cache_dir)
        self.memo = RunMemo()
        self.idle: queue.Queue[RunnerProcess] = queue.Queue()
        self.all_runners: list[RunnerProcess] = []
        self.host = socket.gethostname()
        self.pipeline_version = _pipeline_version()
        self.closed = False

    @property
    def sandbox_uids(self) -> set[int]:
        """The reserved uids this backend's programs run under (empty when not root)."""
        return {runner.uid for runner in self.all_runners if runner.uid is not None}

    # -- Backend protocol ----------------------------------------------------------------------

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        if self.workers == 1 or len(requests) <= 1:
            for request in requests:
                yield self.run_one(request)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(self.run_one, requests)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for runner in self.all_runners:
            runner.close()

    def __enter__(self) -> BwrapBackend:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- one request ---------------------------------------------------------------------------

    def run_one(self, request: RunRequest) -> RunResult:
        started = datetime.now(UTC)
        spec = spec_for(request.program.language)
        missing = self.missing_tools(spec, request)
        if missing:
            tool = missing[0]
            phase = PhaseResult(
                verdict=Verdict.TOOLCHAIN_MISSING,
                detail=f"`{tool}` is not installed: {spec.install_hint(tool)}",
            )
            return self.finish(request, None, [phase], started, spec)
        runner = self.acquire()
        try:
            compile_phase, runs = self.execute(request, spec, runner)
        except SandboxCrash as crash:
            self.discard(runner)
            phase = PhaseResult(verdict=Verdict.SANDBOX_ERROR, detail=str(crash)[:4000])
            return self.finish(request, None, [phase], started, spec)
        self.idle.put(runner)
        return self.finish(request, compile_phase, runs, started, spec)

    def missing_tools(self, spec: LanguageSpec, request: RunRequest) -> list[str]:
        if request.program.run_instruction:
            return [] if find_tool("sh") else ["sh"]
        return [tool for tool in spec.tools(request.setting, request.profile) if find_tool(tool) is None]

    def execute(
        self, request: RunRequest, spec: LanguageSpec, runner: RunnerProcess
    ) -> tuple[PhaseResult | None, list[PhaseResult]]:
        program, setting, profile = request.program, request.setting, request.profile
        files = [{"path": path, "text": text} for path, text in spec.placed_files(program)]
        if program.run_instruction:
            run = self.run_phase(request, spec, ["sh", "-c", program.run_instruction])
            return None, self.run_job(runner, request, files, run)
        if not spec.compiled:
            run = self.run_phase(request, spec, spec.run_argv(program, setting, profile))
            return None, self.run_job(runner, request, files, run)
        compile_argv = spec.compile_argv(program, setting, profile)
        env = sandbox_env(profile)
        # The command as the sandbox runs it (unsafe-local rewrites /app) and the backend are part of the
        # key: a compile's diagnostics quote its paths, and one backend's compile is no other's.
        final = (self.localize(compile_argv, runner), self.localize_env(env, runner))
        key = cache_key(self.name, files, tool_version(compile_argv[0]), *final)
        cached = self.cache.get(key)
        if cached is None:
            compile_run, artifacts = self.compile(runner, request, spec, files, compile_argv, env)
            if compile_run["status"] in CACHEABLE_COMPILE_STATUSES:
                self.cache.put(key, compile_run, artifacts)
            origin = "compiled"
        else:
            compile_run, artifacts = cached["compile"], cached["artifacts"]
            origin = f"compile cache hit {key[:12]}"
            files = []  # the workspace gets the cached artifacts instead
        compile_phase = to_phase(compile_run, compile_verdict(compile_run), origin)
        if compile_phase.verdict is not Verdict.OK:
            return compile_phase, []
        run_argv = spec.run_argv(program, setting, profile)
        if spec.heap_flag:  # the JVM sizes its heap from the host's RAM, not from our limit
            run_argv.insert(1, spec.heap_flag.format(max(16, request.limits.run.memory_mib // 2)))
        run = self.run_phase(request, spec, run_argv)
        memo_key = cache_key(artifacts.get("digest"), run, request.repeats)
        shared = self.memo.get(memo_key)
        if shared is not None:
            detail = f"shared run of identical binary {str(artifacts.get('digest'))[:12]}"
            return compile_phase, [to_phase(r, run_verdict(r), detail) for r in shared]
        restore = [
            {"path": a["path"], "b64": a["b64"], "mode": a["mode"]} for a in artifacts.get("files", [])
        ]
        reset = cached is not None
        runs = self.run_job(runner, request, restore if reset else [], run, reset=reset, raw=True)
        if all(
            r["status"] in SHAREABLE_RUN_STATUSES for r in runs
        ):  # a limit hit is this moment's, not the binary's
            self.memo.put(memo_key, runs)
        return compile_phase, [to_phase(r, run_verdict(r)) for r in runs]

    def compile(
        self,
        runner: RunnerProcess,
        request: RunRequest,
        spec: LanguageSpec,
        files: list[dict[str, Any]],
        argv: list[str],
        env: dict[str, str],
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        phase = {
            "name": "compile",
            "argv": self.localize(argv, runner),
            "env": self.localize_env(env, runner),
            "limits": request.limits.compile.model_dump(),
            "memory_rlimit": spec.memory_rlimit,
            "cwd": self.workdir(runner),
        }
        job = {
            "id": request.run_id,
            "reset": True,
            "workdir": self.workdir(runner),
            "files": files,
            "phases": [phase],
            "artifacts": list(spec.artifacts),
            "export": True,
        }
        result = runner.call(job, timeout_s=request.limits.compile.wall_s + RUNNER_GRACE_S)
        compile_run = result["phases"][0]["runs"][0]
        compile_run["argv"] = argv  # record the command as the sandbox sees it
        artifacts = result["artifacts"] if compile_run["status"] == "ok" else {"digest": None, "files": []}
        return compile_run, artifacts

    def run_phase(self, request: RunRequest, spec: LanguageSpec, argv: list[str]) -> dict[str, Any]:
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
        self,
        runner: RunnerProcess,
        request: RunRequest,
        files: list[dict[str, Any]],
        run: dict[str, Any],
        reset: bool = True,
        raw: bool = False,
    ) -> list[Any]:
        phase = {
            **run,
            "argv": self.localize(run["argv"], runner),
            "env": self.localize_env(run["env"], runner),
            "cwd": self.workdir(runner),
        }
        job = {
            "id": request.run_id,
            "reset": reset,
            "workdir": self.workdir(runner),
            "files": files,
            "phases": [phase],
        }
        timeout_s = request.limits.run.wall_s * request.repeats + RUNNER_GRACE_S
        runs = runner.call(job, timeout_s)["phases"][0]["runs"]
        for one in runs:
            one["argv"] = run["argv"]
        return runs if raw else [to_phase(r, run_verdict(r)) for r in runs]

    def finish(
        self,
        request: RunRequest,
        compile_phase: PhaseResult | None,
        runs: list[PhaseResult],
        started: datetime,
        spec: LanguageSpec,
    ) -> RunResult:
        run = runs[0] if runs else None
        verdict: Verdict
        if compile_phase is not None and compile_phase.verdict is not Verdict.OK:
            verdict = compile_phase.verdict
        else:
            verdict = run.verdict if run else Verdict.SANDBOX_ERROR
        tools = spec.tools(request.setting, request.profile)
        versions = {tool: tool_version(tool) or "missing" for tool in tools}
        return RunResult(
            run_id=request.run_id,
            program_id=request.program.program_id,
            setting_id=request.setting.setting_id,
            profile_id=request.profile.profile_id,
            language=request.program.language,
            setting=request.setting,
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
                limits=request.limits,
                host=self.host,
                started_at=started,
                pipeline_version=self.pipeline_version,
            ),
        )

    # -- runner processes ----------------------------------------------------------------------

    def acquire(self) -> RunnerProcess:
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            runner = self.start_runner()
            self.all_runners.append(runner)
            return runner

    def discard(self, runner: RunnerProcess) -> None:
        runner.close()

    def start_runner(self) -> RunnerProcess:
        uid, lock = reserve_uid() if os.getuid() == 0 else (None, None)
        runner_args = ["--uid", str(uid)] if uid is not None else ["--kill", "all-in-namespace"]
        if self.bwrap is None:
            return self.start_unsafe(uid, lock)
        argv = [
            self.bwrap,
            *bwrap_mounts(),
            *bwrap_namespaces(as_root=uid is not None),
            "--chdir",
            WORKDIR,
            SANDBOX_PYTHON,
            "-I",
            "-S",
            f"{RUNNER_MOUNT}/runner.py",
            "--scratch",
            "/tmp",
            *runner_args,
        ]
        return RunnerProcess(argv, sandbox_env_for_runner(), lock, None, uid)

    def start_unsafe(self, uid: int | None, lock: Any | None) -> RunnerProcess:
        scratch = Path(tempfile.mkdtemp(prefix="surge-unsafe-"))
        os.chmod(scratch, 0o755)
        for name in ("app", "tmp"):
            (scratch / name).mkdir()
        argv = [SANDBOX_PYTHON, "-I", "-S", str(RUNNER_DIR / "runner.py"), "--scratch", str(scratch / "tmp")]
        argv += ["--uid", str(uid)] if uid is not None else ["--kill", "group"]
        env = {**sandbox_env_for_runner(), "HOME": str(scratch / "tmp" / "home")}
        runner = RunnerProcess(argv, env, lock, scratch, uid)
        return runner

    def workdir(self, runner: RunnerProcess) -> str:
        return str(runner.scratch / "app") if runner.scratch else WORKDIR

    def localize(self, argv: list[str], runner: RunnerProcess) -> list[str]:
        """unsafe-local has no /app: point the spec's /app paths at the runner's scratch directory."""
        if runner.scratch is None:
            return argv
        app = self.workdir(runner)
        return [app + arg[len(WORKDIR) :] if arg.startswith(WORKDIR) else arg for arg in argv]

    def localize_env(self, env: dict[str, str], runner: RunnerProcess) -> dict[str, str]:
        if runner.scratch is None:
            return env
        tmp = str(runner.scratch / "tmp")
        return {**env, "HOME": tmp + "/home", "TMPDIR": tmp}


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
        item for key, value in sandbox_env_for_runner().items() for item in ("--setenv", key, value)
    ]


def sandbox_env_for_runner() -> dict[str, str]:
    from sandboxes.profiles import SANDBOX_PATH

    return {"PATH": SANDBOX_PATH, "HOME": SANDBOX_HOME, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}


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


def run_verdict(run: dict[str, Any]) -> Verdict:
    return STATUS_VERDICTS.get(run["status"], Verdict.SANDBOX_ERROR)


# A compiler that ended by itself said something about the program; one that ended on a limit or a
# sandbox failure said something about this machine at that moment, and is compiled again next time.
CACHEABLE_COMPILE_STATUSES = frozenset({"ok", "runtime_error"})
SHAREABLE_RUN_STATUSES = frozenset({"ok", "runtime_error", "signal"})


def compile_verdict(run: dict[str, Any]) -> Verdict:
    """ok; compile_error when the compiler refused (or crashed: an internal compiler error); a limit or
    sandbox error as itself, never as the program's compile error."""
    status = run["status"]
    if status == "exec_failed":
        return Verdict.TOOLCHAIN_MISSING
    if status in ("runtime_error", "signal"):
        return Verdict.COMPILE_ERROR
    return STATUS_VERDICTS.get(status, Verdict.SANDBOX_ERROR)


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


def _pipeline_version() -> str:
    try:
        from importlib.metadata import version

        return version("surge-pipeline")
    except Exception:  # not installed (running from a checkout)
        return "0+unknown"


__all__ = ["BwrapBackend", "Limits", "SandboxCrash"]
