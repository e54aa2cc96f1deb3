"""Compilers kept warm across the programs one runner serves (loaded by runner.py from its own folder).

STDLIB ONLY, Python >= 3.9, like runner.py. A compile phase that names a warm server (``"warm":
{"server": [...], "serves": "javac"}``, from the language spec's ``warm_compiler``) is first offered to a
server of that kind, started once per runner and key (server command, environment, folder, memory rule):
the server compiles in-process, so the JVM or V8 start and JIT warm-up are paid once per runner, not once
per program. Its sources are in ``warm_servers/``; ``{servers}`` in its command is this folder.

What keeps a warm compile the same as a cold one, byte for byte:

- it answers only a clean success (exit status 0, nothing on stdout or stderr, nothing on the server's
  own stderr since it started); anything else (a diagnostic, a failure, a limit, a crash) is thrown away
  with the files it wrote, and the compile runs cold: a failing compile's diagnostics are always the cold
  compiler's own;
- the first compile a server serves also runs cold, and the two are compared (status, streams, every file
  written): a server that differs is stopped and its key never served again by this runner;
- each request is one call of the compiler's own command-line entry point with a fresh compiler (javac's
  context, scalac's Global, tsc's program): nothing of one program is kept for the next but loaded code.

Who it runs as: a uid of its own (the programs' uid + ``WARM_UID_OFFSET``), which no program holds. The
runner kills every process of the programs' uid after every phase; the server, another uid, lives on, and
no program can signal, trace or read it. It writes the program's outputs into the workdir, opened to it
for the compile only; the runner then gives every file it wrote to the programs' uid, as a cold compile
leaves them. Without a uid of the programs' own (a runner that is not root) nothing is kept warm.

Its CPU time is the server's own (/proc/<pid>/stat: user and system ticks of all its threads) since the
compile before: a server's start is paid by the first program it serves. A warm attempt thrown away (not
clean) is not charged: the cold compile's facts are the program's.

A compiler's own content-addressed cache can be kept warm the same way (``SeededCaches``: Go's).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandboxes.inner.protocol import Phase, RawRun, WarmServer

# Program uids are reserved in a block of 1000 (the bwrap backend's SANDBOX_UID_FIRST..+COUNT); the warm
# uid is the one a block above, so it is unique to this runner and never any sandbox's program uid.
WARM_UID_OFFSET = 1000
# A server may take at most this share of the phase's wall and CPU limits before the compile runs cold:
# the cold compile then has its whole limit, within the host's budget for the phase.
WARM_LIMIT_SHARE = 0.5
SERVER_CPU_S = 7 * 24 * 3600  # the server's own RLIMIT_CPU: its life, not one compile
SETTLE_STEP_S = 0.002  # between looks at a server whose threads still work after its reply
SETTLE_MAX_S = 1.0
READ_CHUNK_BYTES = 65536

# spawn(argv, env, cwd, limits, memory_rlimit, uid) -> (pid, stdin fd, stdout fd, stderr fd)
Spawn = Callable[[list, dict, str, dict, str, int], tuple]


class Server:
    """One running server: its pipes, and the CPU it has used so far."""

    def __init__(self, pid: int, stdin_fd: int, stdout_fd: int, stderr_fd: int) -> None:
        self.pid, self.stdin_fd, self.stdout_fd, self.stderr_fd = pid, stdin_fd, stdout_fd, stderr_fd
        self.cpu_ticks = (0, 0)
        self.verified = False  # its first compile was compared with a cold one's, and agreed
        self.stopped = False  # killed: it passed a limit, or died
        self.broken = False  # it replied out of protocol
        os.set_blocking(stderr_fd, False)

    def spoke_aside(self) -> bool:
        """Whether the server wrote anything to its own stderr (a JVM warning a cold start would print
        with every compile): then its clean answers are not a cold compile's."""
        try:
            return bool(os.read(self.stderr_fd, READ_CHUNK_BYTES))
        except BlockingIOError:
            return False
        except OSError:
            return True

    def stop(self) -> None:
        self.stopped = True
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class WarmCompilers:
    """The runner's warm servers, by key; ``compile`` answers a compile phase warm or runs it cold."""

    def __init__(self, folder: str, spawn: Spawn, uid: int, gid: int) -> None:
        self.folder = folder
        self.spawn = spawn
        self.uid, self.gid = uid, gid  # the programs'
        self.warm_uid = uid + WARM_UID_OFFSET
        self.servers: dict[tuple, Server] = {}
        self.refused: set[tuple] = set()
        self.seeds = SeededCaches(uid, gid, self.warm_uid)

    def compile(self, phase: Phase, run: Callable[[Phase], RawRun]) -> RawRun:
        if "seed" in phase:
            return self.seeds.compile(phase, run)
        cold = lambda: run(phase)  # noqa: E731
        warm = phase.get("warm")
        if warm is None or not servable(phase, warm):
            return cold()
        key = server_key(phase, warm)
        if key in self.refused:
            return cold()
        server = self.servers.get(key) or self.start(key, phase, warm)
        if server is None:
            return cold()
        before = set(walk(phase["cwd"]))
        answer = self.ask(server, phase)
        if server.broken or server.spoke_aside():
            self.drop(key, refuse=True)
        elif server.stopped:  # a limit or a crash: the next program starts another, if it ever served
            self.drop(key, refuse=not server.verified)
        if answer is None or key not in self.servers:
            remove_new(phase["cwd"], before)
            return cold()
        if server.verified:
            return answer
        return self.verify(key, server, phase, answer, before, cold)

    def start(self, key: tuple, phase: Phase, warm: WarmServer) -> Server | None:
        argv = [arg.replace("{servers}", self.folder) for arg in warm["server"]]
        limits = {**phase.get("limits", {}), "cpu_s": SERVER_CPU_S}
        try:
            pid, *fds = self.spawn(argv, phase.get("env", {}), phase["cwd"], limits,
                                   phase.get("memory_rlimit", "data"), self.warm_uid)  # fmt: skip
        except (OSError, RuntimeError):
            self.refused.add(key)
            return None
        server = Server(pid, *fds)
        self.servers[key] = server
        return server

    def ask(self, server: Server, phase: Phase) -> RawRun | None:
        """The server's compile of the phase, as a run, when it was a clean success within its share of
        the limits; None otherwise (the files it wrote are the caller's to remove)."""
        workdir = phase["cwd"]
        mode = os.stat(workdir).st_mode & 0o7777
        os.chmod(workdir, 0o777)  # the server may write the outputs (no program runs during a compile)
        started = time.monotonic()
        try:
            reply = request(server, phase)
        finally:
            os.chmod(workdir, mode)
            give_back(workdir, self.uid, self.gid)
        if reply is None:
            return None
        settle(server.pid)
        user_s, sys_s = server_cpu(server)  # a thrown-away attempt's too: the next starts from here
        status, stdout, stderr = reply
        if status != 0 or stdout or stderr:
            return None
        return clean_run(phase["argv"], user_s, sys_s, time.monotonic() - started, peak_rss_kib(server.pid))

    def verify(self, key, server, phase, answer, before, cold) -> RawRun:
        """The first compile of a server runs cold too: equal, the server serves from now on; not, never.
        The cold run is the answer either way, with the server's CPU so far added (its start is this
        program's cost)."""
        written = snapshot(phase["cwd"], before)
        remove_new(phase["cwd"], before)
        truth = cold()
        same = truth["status"] == "ok" and not truth["stdout"] and not truth["stderr"]
        if same and snapshot(phase["cwd"], before) == written:
            server.verified = True
        else:
            self.drop(key, refuse=True)
        paid = truth.copy()
        paid["cpu_user_s"] = round(truth["cpu_user_s"] + answer["cpu_user_s"], 6)
        paid["cpu_sys_s"] = round(truth["cpu_sys_s"] + answer["cpu_sys_s"], 6)
        return paid

    def drop(self, key: tuple, refuse: bool) -> None:
        server = self.servers.pop(key, None)
        if server is not None:
            server.stop()
        if refuse:
            self.refused.add(key)

    def close(self) -> None:
        for key in list(self.servers):
            self.drop(key, refuse=False)


def servable(phase: Phase, warm: WarmServer) -> bool:
    """The phase runs the tool the server stands for, with arguments the request line can carry."""
    argv = phase["argv"]
    return argv[0] == warm["serves"] and not any("\0" in arg or "\n" in arg for arg in argv)


def server_key(phase: Phase, warm: WarmServer) -> tuple:
    env = tuple(sorted(phase.get("env", {}).items()))
    return (tuple(warm["server"]), env, phase["cwd"], phase.get("memory_rlimit", "data"))


def request(server: Server, phase: Phase) -> tuple[int, bytes, bytes] | None:
    """Send the compile's arguments; the reply (status, stdout, stderr), or None when the server died,
    garbled its reply, or passed its share of the phase's wall or CPU limit (then it is stopped)."""
    limits = phase.get("limits", {})
    deadline = time.monotonic() + WARM_LIMIT_SHARE * float(limits.get("wall_s", 10.0))
    cpu_budget_s = WARM_LIMIT_SHARE * float(limits.get("cpu_s", 10.0))
    cpu_before = sum(server.cpu_ticks) / os.sysconf("SC_CLK_TCK")
    line = "\0".join(phase["argv"][1:]).encode("utf-8") + b"\n"
    try:
        os.write(server.stdin_fd, line)  # far below a pipe's buffer: never blocks
    except OSError:
        return None
    received = bytearray()
    while True:
        try:
            reply = parse_reply(received)
        except ValueError:
            server.broken = True
            server.stop()
            return None
        if reply is not None:
            return reply
        ticks = cpu_ticks(server.pid)
        over_cpu = ticks is None or sum(ticks) / os.sysconf("SC_CLK_TCK") - cpu_before > cpu_budget_s
        remaining = deadline - time.monotonic()
        if over_cpu or remaining <= 0:
            server.stop()
            return None
        readable, _, _ = select.select([server.stdout_fd], [], [], min(remaining, 0.05))
        if readable:
            chunk = os.read(server.stdout_fd, READ_CHUNK_BYTES)
            if not chunk:
                server.stop()
                return None
            received += chunk


def parse_reply(received: bytearray) -> tuple[int, bytes, bytes] | None:
    """``EXIT <status> <stdout bytes> <stderr bytes>\\n`` then the bytes; None while incomplete."""
    end = received.find(b"\n")
    if end < 0:
        return None
    word, status, out_n, err_n = received[:end].decode("ascii").split()  # ValueError: out of protocol
    body = received[end + 1 :]
    if len(body) < int(out_n) + int(err_n):
        return None
    if word != "EXIT" or len(body) != int(out_n) + int(err_n):
        raise ValueError(f"warm compiler replied out of protocol: {bytes(received[:80])!r}")
    return int(status), bytes(body[: int(out_n)]), bytes(body[int(out_n) :])


def settle(pid: int) -> None:
    """Wait until no thread of the server works after its reply (a JVM's JIT threads go on compiling what
    the compile made hot), at most SETTLE_MAX_S: its work is then this compile's, and none of it runs
    beside the program, whose wall time it would take.

    A server at rest costs one look at its threads. This used to wait for two CPU readings 20 ms apart
    (the clock tick is 10 ms) to agree, which held every warm compile at least 20 ms with the runner's
    core idle: sampled in a CRUXEval-X audit, each runner slept there ~1.5% of its time."""
    deadline = time.monotonic() + SETTLE_MAX_S
    while working(pid) and time.monotonic() < deadline:
        time.sleep(SETTLE_STEP_S)


def working(pid: int) -> bool:
    """Whether a thread of the process is running, runnable or in disk sleep (``R`` or ``D`` in its
    /proc stat); False once the process is gone."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    states = (stat_fields(f"/proc/{pid}/task/{thread}/stat") for thread in threads)
    return any(fields is not None and fields[0] in (b"R", b"D") for fields in states)  # None: it ended


def cpu_ticks(pid: int) -> tuple[int, int] | None:
    """(user, system) clock ticks of a live process, all its threads; None once it is gone."""
    fields = stat_fields(f"/proc/{pid}/stat")
    return None if fields is None else (int(fields[11]), int(fields[12]))


def stat_fields(path: str) -> list[bytes] | None:
    """The fields of a /proc stat file after the command's name (its state first); None once gone."""
    try:
        with open(path, "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def server_cpu(server: Server) -> tuple[float, float]:
    """The server's user and system CPU seconds since the compile before (its start, for the first)."""
    now = cpu_ticks(server.pid) or server.cpu_ticks
    tick_s = 1.0 / os.sysconf("SC_CLK_TCK")
    used = ((now[0] - server.cpu_ticks[0]) * tick_s, (now[1] - server.cpu_ticks[1]) * tick_s)
    server.cpu_ticks = now
    return used


def peak_rss_kib(pid: int) -> int:
    """The server's peak resident memory (VmHWM): what the compiler needed, with its warm state."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", "rb") as handle:
        for line in handle:
            if line.startswith(b"VmHWM:"):
                return int(line.split()[1])
    return 0


def clean_run(argv: list[str], user_s: float, sys_s: float, wall_s: float, rss_kib: int) -> RawRun:
    return {
        "argv": argv,
        "stdout": "",
        "stderr": "",
        "stdout_truncated": False,
        "stderr_truncated": False,
        "exit_code": 0,
        "signal": None,
        "cpu_user_s": round(user_s, 6),
        "cpu_sys_s": round(sys_s, 6),
        "wall_s": round(wall_s, 6),
        "max_rss_kib": rss_kib,
        "status": "ok",
        "detail": "",
    }


# -- the workdir's files ------------------------------------------------------------------------------


def walk(workdir: str) -> list[str]:
    """Every path under the workdir, directories included, relative to it."""
    found = []
    for root, dirs, names in os.walk(workdir):
        found += [os.path.relpath(os.path.join(root, name), workdir) for name in (*dirs, *names)]
    return found


def give_back(workdir: str, uid: int, gid: int) -> None:
    """Every path under the workdir owned by another uid (the server's) becomes the programs'."""
    for relative in walk(workdir):
        path = os.path.join(workdir, relative)
        with contextlib.suppress(OSError):
            if os.lstat(path).st_uid != uid:
                os.lchown(path, uid, gid)


def remove_new(workdir: str, before: set[str]) -> None:
    """Remove what appeared under the workdir since ``before`` (a thrown-away warm compile's outputs)."""
    for relative in sorted(set(walk(workdir)) - before, key=len, reverse=True):
        path = os.path.join(workdir, relative)
        with contextlib.suppress(OSError):
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            else:
                os.unlink(path)


def snapshot(workdir: str, before: set[str]) -> dict[str, tuple[int, bytes]]:
    """The new files' modes and bytes, to compare a warm compile's outputs with a cold one's."""
    found: dict[str, tuple[int, bytes]] = {}
    for relative in set(walk(workdir)) - before:
        path = os.path.join(workdir, relative)
        mode = os.lstat(path).st_mode
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as handle:
                found[relative] = (mode, handle.read())
        else:
            found[relative] = (mode, b"")
    return found


# -- a compiler's own cache, seeded once per runner ---------------------------------------------------


class SeededCaches:
    """Compiles that start from what a seed program's compile left, once per runner (``"seed"``, from the
    spec's ``seeded_cache``: the tool it serves, the seed's files and compile, and how a compile uses
    the result).

    - A copied cache (``cache_env``): Go's build cache is content-addressed (an entry's key hashes the
      toolchain, flags and sources), so a program compiled against a copy of a cache that already holds
      the standard library's packages gets the same objects, and the same binary, as one compiled
      against an empty cache, without building them again. Each compile gets a fresh copy, its own, at
      the path its environment names (the programs' /tmp is emptied before every program, and the copy
      with it).
    - Arguments that read the seed (``with_seed``, ``{seed}`` its folder): g++ with a precompiled
      header, forced in front of programs that begin with the ``prologue`` the header was made for. The
      compile's own command, without them, stays the one its facts name and the cold compile runs.

    The seed is compiled by the warm uid into a folder beside the workdir, which the programs' uid can
    read but not write. As with a warm server, only a clean success is answered so, and the first is
    also compiled cold and compared (status, streams, every file written); the seed's CPU, and that
    first seeded compile's, are added to it.
    """

    def __init__(self, uid: int, gid: int, warm_uid: int) -> None:
        self.uid, self.gid, self.warm_uid = uid, gid, warm_uid
        self.templates: dict[str, tuple[str, float]] = {}  # key -> (template, the seed's CPU seconds)
        self.verified: set[str] = set()
        self.refused: set[str] = set()

    def compile(self, phase: Phase, run: Callable[[Phase], RawRun]) -> RawRun:
        key = seed_key(phase)
        if key in self.refused or not self.applies(phase):
            return run(phase)
        template = self.templates.get(key) or self.prepare(key, phase)
        if template is None:
            return run(phase)
        workdir, target = phase["cwd"], copy_target(phase)
        before = set(walk(workdir))
        if target:
            copy_owned(template[0], target, self.uid, self.gid)
        seeded = run(seeded_phase(phase, template[0]))
        seeded["argv"] = phase["argv"]  # the command its facts name: the compile's own
        clean = seeded["status"] == "ok" and not seeded["stdout"] and not seeded["stderr"]
        if clean and key in self.verified:
            return seeded
        written = snapshot(workdir, before)
        remove_new(workdir, before)
        if target:
            shutil.rmtree(target, ignore_errors=True)
        truth = run(phase)
        if not clean:
            return truth
        if truth == {**seeded, **timing(truth)} and snapshot(workdir, before) == written:
            self.verified.add(key)
        else:
            self.refused.add(key)
        paid = truth.copy()  # the seed, and this compile's seeded run, are paid here once
        paid["cpu_user_s"] = round(truth["cpu_user_s"] + template[1] + seeded["cpu_user_s"], 6)
        paid["cpu_sys_s"] = round(truth["cpu_sys_s"] + seeded["cpu_sys_s"], 6)
        return paid

    def applies(self, phase: Phase) -> bool:
        """The compile runs the seed's tool; a copied cache's place is free; every file of the program
        begins with the prologue."""
        seed = phase["seed"]
        if phase["argv"][0] != seed["serves"]:
            return False
        target = copy_target(phase)
        if seed.get("cache_env") and (not target.startswith("/") or os.path.lexists(target)):
            return False
        prologue = seed.get("prologue", "").encode("utf-8")
        return not prologue or all(
            starts_with(os.path.join(phase["cwd"], f), prologue) for f in walk(phase["cwd"])
        )

    def prepare(self, key: str, phase: Phase) -> tuple[str, float] | None:
        """Compile the seed as the warm uid: the template is the cache it filled (a copied cache), else
        the seed's folder. None when it fails (the key is then never seeded by this runner)."""
        seed = phase["seed"]
        root = os.path.join(os.path.dirname(os.path.abspath(phase["cwd"])), SEED_FOLDER)
        home = os.path.join(root, key)
        work, cache = os.path.join(home, "work"), os.path.join(home, "cache")
        try:
            os.makedirs(root, mode=0o755, exist_ok=True)
            for folder in (home, work):
                os.makedirs(folder, mode=0o755, exist_ok=True)
                os.chown(folder, self.warm_uid, self.warm_uid)
            for entry in seed["files"]:
                with open(os.path.join(work, entry["path"]), "w", encoding="utf-8") as handle:
                    handle.write(entry["text"])
            env = seed_env(phase, home, cache)
            before = os.times()
            done = subprocess.run(seed["argv"], cwd=work, env=env, user=self.warm_uid, group=self.warm_uid,
                                  extra_groups=[], capture_output=True, timeout=SEED_TIMEOUT_S)  # fmt: skip
            after = os.times()
        except (OSError, subprocess.SubprocessError):
            done = None
        template = cache if seed.get("cache_env") else work
        if done is None or done.returncode != 0 or not os.path.isdir(template):
            self.refused.add(key)
            return None
        spent_s = after.children_user + after.children_system - before.children_user - before.children_system
        self.templates[key] = (template, spent_s)
        return self.templates[key]


SEED_TIMEOUT_S = 300
# Beside the workdir (bwrap: /.surge-seeds in the sandbox's own root), never emptied between programs.
SEED_FOLDER = ".surge-seeds"


def seed_key(phase: Phase) -> str:
    """What a template depends on: the seed, and the compile's environment (the cache's keys hash the
    toolchain and its settings, and a template is only ever used where it was made)."""
    facts = [phase["seed"], sorted(phase.get("env", {}).items()), phase["cwd"]]
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]


def copy_target(phase: Phase) -> str:
    """Where a copied cache goes: the path the compile's environment names ('' for no copied cache)."""
    name = phase["seed"].get("cache_env", "")
    return phase.get("env", {}).get(name, "") if name else ""


def seeded_phase(phase: Phase, template: str) -> Phase:
    """The compile with the seed's arguments after its tool."""
    extra = [arg.replace("{seed}", template) for arg in phase["seed"].get("with_seed", [])]
    tool, *rest = phase["argv"]
    seeded = phase.copy()
    seeded["argv"] = [tool, *extra, *rest]
    return seeded


def starts_with(path: str, prologue: bytes) -> bool:
    if not os.path.isfile(path) or os.path.islink(path):
        return True  # a folder: its files are checked one by one
    with open(path, "rb") as handle:
        return handle.read(len(prologue)) == prologue


def seed_env(phase: Phase, home: str, cache: str) -> dict[str, str]:
    """The compile's environment for the seed, with every folder under /tmp moved into the seed's home
    (the warm uid must leave nothing in the programs' /tmp: Go's GOPATH is there) and the cache's its
    own."""
    env = {
        name: home + value if value == "/tmp" or value.startswith("/tmp/") else value
        for name, value in phase.get("env", {}).items()
    }
    name = phase["seed"].get("cache_env", "")
    return {**env, "TMPDIR": home, **({name: cache} if name else {})}


def timing(run: RawRun) -> dict:
    """A run's measurements, which two equal compiles never share."""
    return {key: run[key] for key in ("cpu_user_s", "cpu_sys_s", "wall_s", "max_rss_kib")}  # type: ignore[literal-required]


def copy_owned(template: str, target: str, uid: int, gid: int) -> None:
    """A copy of the template at ``target``, every path of it the programs' own."""
    shutil.copytree(template, target, symlinks=True)
    os.lchown(target, uid, gid)
    for relative in walk(target):
        os.lchown(os.path.join(target, relative), uid, gid)
