"""The Docker sandbox: warm containers of pinned images, each driving the same in-sandbox runner as bwrap.

One container per (image, memory/pids budget) and worker runs ``sandboxes/inner/runner.py`` as its main
process, talked to over the attach socket with JSON lines (``exec_run`` has no timeout and cannot be
killed; here a hung runner is a socket timeout, and the container is removed). The runner clears /app and
/tmp before every program, so each program gets a fresh working directory; a container is recycled after
``recycle_after`` programs, and at once when it may be contaminated (the runner died or hung, or a program
hit a limit). This file is only how containers start and what an image holds (its digest, its tools, probed
in the image); compile, run, verdicts and caches are the runner core's (sandboxes/core.py), with one compile
cache and one run memo per image.

Hardening: no network, read-only root, tmpfs /app and /tmp, ``cap_drop=ALL``, no-new-privileges, Docker's
default seccomp profile, a pids limit and a memory limit above the runner's own per-program RLIMIT_DATA.
Programs run as uid 10001 with no capability, behind the spawn helper's seccomp filter (the host's static
build of sandboxes/inner/become.c, mounted read-only, as bwrap mounts it), which the runner puts up on
itself as it starts and every program inherits: docs/sandboxes.md, "The second wall". The runner runs as
root in the container with only the capabilities it needs to prepare /app and /tmp for that uid, switch
to it and signal it (`RUNNER_CAPABILITIES`), so no program can trace, read or signal the runner that
supervises it. It kills leftovers by uid, as bwrap's root runner does.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from docker.errors import DockerException, ImageNotFound

from pipeline.errors import SandboxUnavailable
from pipeline.records import EnvironmentProfile, Language, RunRequest, Verdict, content_id
from pipeline.stopping import track
from sandboxes.backends.registry import BackendSpec
from sandboxes.compile_cache import CompileCache, RunMemo
from sandboxes.core import (
    RUNNER_DIR,
    PathMap,
    RunnerCore,
    RunnerSpent,
    SandboxCrash,
    Unplaceable,
    WarmRunners,
    runner_env,
)
from sandboxes.inner.protocol import Job, JobResult, Phase
from sandboxes.jobs import encode_job
from sandboxes.languages import spec_for, version_flag
from sandboxes.spawn_helper import is_static, spawn_helper

# -- images ------------------------------------------------------------------------------------------

NAME = "docker"
IMAGE_REPOSITORY = "surge"
DEFAULT_SUITE = "bookworm"  # profile "current" (and every profile that names no suite)
PROFILE_SUITES = {"current": "bookworm", "surge-repro": "bullseye", "surge-focal": "focal"}
# A suite only some families have (dockerfiles/pins/<suite>.txt) -> (those families, the suite the rest run)
PARTIAL_SUITES = {"focal": (frozenset({"cpp"}), "bullseye")}
BUILD_HINT = "build the images: `make images` (or `bash dockerfiles/build.sh --minimal`: C/C++ and Python)"
START_HINT = "start the Docker engine (`systemctl start docker`) or use the local sandbox (--backend bwrap)"

# -- containers --------------------------------------------------------------------------------------

RUNNER_SOURCE_PATH = RUNNER_DIR / "runner.py"
CONTAINER_PYTHON = "/usr/bin/python3"
SANDBOX_UID = 10001  # the images' `runner` user (dockerfiles/common/install-packages.sh): programs run as it
SPAWN_HELPER_MOUNT = "/opt/surge-spawn"  # sandboxes/spawn_helper.py's static build, read-only
# The root runner's only capabilities: write and clear /app and /tmp, which belong to the program's uid
# (DAC_OVERRIDE, FOWNER: even what a program chmod-ed 000 or left in sticky /tmp), give files to that uid
# (CHOWN), switch to it (SETUID, SETGID) and kill what it leaves (KILL). The program drops them all when
# it becomes uid 10001, and no-new-privileges keeps set-uid files from giving any back.
RUNNER_CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"]
HELPER_HINT = "apt-get install gcc libc6-dev (or make setup): the host builds the static spawn helper"
RECYCLE_AFTER_PROGRAMS = 200
RUNNER_OVERHEAD_MIB = 256  # the runner and page cache on top of the largest per-program memory limit
RUNNER_PIDS = 16  # the runner, docker-init and the kill helper on top of the per-program process limit
SCRATCH_TMPFS_MIB = 1024
SHM_DIR = "/dev/shm"  # the container's own (private IPC), cleared before every program like /tmp
PROBE_TIMEOUT_S = 60
CONTAINER_START_TIMEOUT_S = 60.0
API_TIMEOUT_S = 60
# A program that hit one of these may have left state we cannot see: the container is replaced.
CONTAMINATING_STATUSES = {
    "wall_time_limit",
    "cpu_time_limit",
    "memory_limit",
    "output_limit",
    "sandbox_error",
}
STDOUT_STREAM, STDERR_STREAM = 1, 2
FRAME_HEADER = struct.Struct(">BxxxL")


def image_for(language: Language, profile: EnvironmentProfile) -> str:
    """The image a language runs in under a profile: profile.image (a template) or surge/<family>:<suite>."""
    spec = spec_for(language)  # the family and any fixed suite are the language spec's
    family = spec.image_family
    suite = spec.image_suite or PROFILE_SUITES.get(profile.name, DEFAULT_SUITE)
    families, fallback = PARTIAL_SUITES.get(suite, (frozenset({family}), suite))
    suite = suite if family in families else fallback
    template = profile.image or f"{IMAGE_REPOSITORY}/{{family}}:{{suite}}"
    image = template.format(family=family, suite=suite)
    # SURGE_IMAGE_REPOSITORY: the same images under another name (a private registry's prefix; the
    # build's fault tests point it at a tag that does not exist yet)
    repository = os.environ.get("SURGE_IMAGE_REPOSITORY")
    if repository and image.startswith(f"{IMAGE_REPOSITORY}/"):
        return f"{repository}/{image.removeprefix(f'{IMAGE_REPOSITORY}/')}"
    return image


def connect(timeout_s: int = API_TIMEOUT_S) -> Any:
    """A docker-py client, or SandboxUnavailable saying how to get one."""
    try:
        import docker
    except ImportError:
        raise SandboxUnavailable("the docker Python package is missing", hint="pip install docker") from None
    try:
        return answering(docker.from_env(timeout=timeout_s))
    except SandboxUnavailable:
        raise
    except Exception as error:  # DockerException: a DOCKER_HOST it cannot read
        raise unreachable(error) from None


def answering(client: Any) -> Any:
    """The client, once its engine answers; else SandboxUnavailable saying how to start one."""
    try:
        client.ping()
    except Exception as error:  # DockerException, connection refused, permission denied on the socket
        raise unreachable(error) from None
    return client


def unreachable(error: Exception) -> SandboxUnavailable:
    return SandboxUnavailable(f"the Docker engine is not reachable: {error}", hint=START_HINT)


# The environment docker-py's from_env reads: which engine a client talks to.
ENGINE_VARIABLES = ("DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH")
_clients: dict[tuple[str | None, ...], Any] = {}
_clients_lock = threading.Lock()


def engine_key() -> tuple[str | None, ...]:
    return tuple(os.environ.get(name) for name in ENGINE_VARIABLES)


def engine_client() -> Any:
    """This process's client of the engine the environment names, asked whether it answers each time (a
    batch's first question): containers kept warm after their batch (``WARM_CONTAINERS``) outlive the
    backend that started them, and are removed through it."""
    key = engine_key()
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            _clients[key] = client = connect()
            return client
    return answering(client)  # the engine may have stopped since


def docker_status() -> dict[str, Any]:
    """For `surge doctor`: is the engine up, its version, and the surge images with their labels."""
    try:
        client = connect(timeout_s=10)
    except SandboxUnavailable as missing:
        return {"available": False, "server_version": "", "images": [], "hint": f"{missing} ({missing.hint})"}
    try:
        version = client.version().get("Version", "")
        driver = client.info().get("Driver", "")
        images = sorted(
            f"{tag} {image.short_id.removeprefix('sha256:')} {pinned_summary(image.labels)}".rstrip()
            for image in client.images.list(name=f"{IMAGE_REPOSITORY}/*")
            for tag in image.tags
        )
    finally:
        client.close()
    status: dict[str, Any] = {
        "available": True,
        "server_version": version,
        "storage_driver": driver,
        "summary": engine_summary(version, driver),
        "images": images,
    }
    if not any(tag.startswith(f"{IMAGE_REPOSITORY}/cpp:") for tag in images):
        status["hint"] = BUILD_HINT
    return status


# The engine's storage driver decides most of a warm container's cost per program. Under fuse-overlayfs,
# the kernel makes the mount's root inode before the daemon's reply turns POSIX ACLs on, so that one
# inode never caches its ACL: every absolute path a program or compiler opens as the programs' uid asks
# the FUSE daemon for the root's ACL again (~1,070 requests for one C compile and run). The kernel's
# overlay2 has no daemon (docs/docker.md, "Where the warm overhead goes").
SLOW_STORAGE_DRIVERS = {
    "fuse-overlayfs": "each path a program opens asks a FUSE daemon: 13-19 ms a program over bwrap in the "
    "bench's mix, under 1 ms with overlay2; the engine's `storage-driver` setting, docs/docker.md",
}


def engine_summary(version: str, driver: str) -> str:
    """The engine's version and storage driver, with what the driver costs where it is a slow one."""
    note = SLOW_STORAGE_DRIVERS.get(driver)
    return f"{version}, storage driver {driver}" + (f" ({note})" if note else "")


def pinned_summary(labels: dict[str, str], shown: int = 4) -> str:
    """The first pinned packages of an image (labels written by dockerfiles/build.sh), for one line."""
    pins = labels.get("org.surge.packages", "").split()
    return " ".join(pins[:shown]) + (f" (+{len(pins) - shown} more)" if len(pins) > shown else "")


@dataclass(frozen=True)
class ContainerShape:
    """What a warm container is created with; programs whose limits fit the same shape share containers."""

    image: str
    memory_mib: int
    pids: int

    @classmethod
    def of(cls, image: str, request: RunRequest) -> ContainerShape:
        limits = (request.limits.compile, request.limits.run)
        return cls(
            image=image,
            memory_mib=max(phase.memory_mib for phase in limits) + RUNNER_OVERHEAD_MIB,
            pids=max(phase.processes for phase in limits) + RUNNER_PIDS,
        )


def host_config(api: Any, shape: ContainerShape, helper: Path) -> Any:
    tmpfs_options = f"rw,exec,nosuid,nodev,size={SCRATCH_TMPFS_MIB}m,uid={SANDBOX_UID},gid={SANDBOX_UID}"
    return api.create_host_config(
        network_mode="none",
        read_only=True,
        tmpfs={"/app": tmpfs_options + ",mode=0755", "/tmp": tmpfs_options + ",mode=1777"},
        cap_drop=["ALL"],
        cap_add=RUNNER_CAPABILITIES,
        security_opt=["no-new-privileges"],
        binds={str(helper): {"bind": SPAWN_HELPER_MOUNT, "mode": "ro"}},
        pids_limit=shape.pids,
        mem_limit=f"{shape.memory_mib}m",
        memswap_limit=f"{shape.memory_mib}m",  # no swap: memory limits mean memory
        init=True,  # docker-init is PID 1: it reaps orphans, and killing the programs' uid cannot reach it
        ipc_mode="private",
        auto_remove=True,  # ... and the container goes with it: no leftovers from a killed pipeline
    )


class ContainerRunner:
    """A container whose main process is the runner: jobs go in and results come out on its attach socket."""

    def __init__(
        self, api: Any, shape: ContainerShape, helper: Path, recycle_after: int = RECYCLE_AFTER_PROGRAMS
    ) -> None:
        self.api = api
        self.shape = shape
        self.paths = PathMap()  # /app and /tmp are the container's own
        self.exports: Path | None = None  # artifacts come back as base64 on the attach socket
        self.recycle_after = recycle_after
        self.jobs = 0  # written to it so far
        self.contaminated = False
        self.stdout = bytearray()  # the runner's lines not read yet (a line may be megabytes: a binary)
        self.stderr = b""
        self.pending = bytearray()  # bytes of a frame not yet complete
        # Every container runs its programs as SANDBOX_UID, so RLIMIT_NPROC (counted per uid, machine-wide)
        # would be one budget for all of them: the container's pids limit bounds processes instead. The
        # runner starts behind the spawn helper's seccomp filter (--wall), which every program inherits.
        command = [SPAWN_HELPER_MOUNT, "--wall",
                   CONTAINER_PYTHON, "-I", "-S", "-c", runner_source(),
                   "--scratch", "/tmp", "--scratch", SHM_DIR, "--clear-ipc",
                   "--uid", str(SANDBOX_UID), "--kill", "uid", "--no-rlimit-nproc",
                   "--spawn-helper", SPAWN_HELPER_MOUNT]  # fmt: skip
        # a program that may have spoilt the container spends its runner: what was queued behind it is
        # refused unrun (RunnerSpent) and runs again in a fresh container
        command += [word for status in sorted(CONTAMINATING_STATUSES) for word in ("--spent-on", status)]
        created = api.create_container(
            shape.image,
            command=command,
            user="0:0",  # the runner; its programs run as SANDBOX_UID (the module docstring says why)
            working_dir="/app",
            stdin_open=True,  # with detach=False also StdinOnce: our socket closing (even by SIGKILL) is
            # EOF for the runner, which then exits ...
            network_disabled=True,
            labels={"org.surge.backend": "docker"},
            environment=runner_env(),  # as under bwrap: HOME=/tmp/home, made on every reset
            host_config=host_config(api, shape, helper),
        )
        self.container_id: str = created["Id"]
        track(self)
        try:
            params = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            response = api.attach_socket(self.container_id, params=params)
            self.socket: socket.socket = getattr(response, "_sock", response)
            api.start(self.container_id)
            ready = self.read_line(CONTAINER_START_TIMEOUT_S)
        except Exception:
            self.close()
            raise
        if not ready.get("ready"):
            self.close()
            raise SandboxCrash(f"runner did not start in {shape.image}: {ready}")

    @property
    def queue_ahead(self) -> bool:
        """Write the next job while one runs while the container takes another after it and no program
        is known to have spoilt it (the runner refuses what was queued behind one that did). Otherwise
        the core gives the container back after the job, and it is recycled."""
        return not self.contaminated and self.jobs + 1 < self.recycle_after

    def call(self, job: Job, timeout_s: float) -> JobResult:
        self.socket.settimeout(timeout_s)
        self.send(encode_job(job))
        return self.receive(timeout_s)

    def send(self, line: bytes) -> None:
        self.jobs += 1
        try:
            self.socket.sendall(line)
        except OSError as error:
            self.contaminated = True
            raise SandboxCrash(f"container runner gone: {error}; {self.stderr_tail()}") from None

    def receive(self, timeout_s: float) -> JobResult:
        result = self.read_line(timeout_s)
        if result.get("refused"):
            self.contaminated = True
            raise RunnerSpent(f"container runner refused a job: {result.get('error')}")
        if not result.get("ok"):
            self.contaminated = True
            raise SandboxCrash(f"runner failed the job: {result.get('error')}")
        statuses = {run.get("status") for phase in result["phases"] for run in phase["runs"]}
        if statuses & CONTAMINATING_STATUSES:
            self.contaminated = True
        return cast(JobResult, result)  # a line the runner wrote: its protocol's result

    def read_line(self, timeout_s: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        searched = 0  # bytes of stdout known to hold no line end: each byte is searched once
        while (end := self.stdout.find(b"\n", searched)) < 0:
            searched = len(self.stdout)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.contaminated = True
                raise SandboxCrash(f"runner silent for {timeout_s:.0f} s; {self.stderr_tail()}")
            self.socket.settimeout(remaining)
            try:
                chunk = self.socket.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as error:
                chunk, self.contaminated = b"", True
                raise SandboxCrash(f"container socket failed: {error}") from None
            if not chunk:
                self.contaminated = True
                raise SandboxCrash(f"container runner exited; {self.stderr_tail()}")
            self.demultiplex(chunk)
        line = bytes(self.stdout[:end])
        del self.stdout[: end + 1]
        return json.loads(line)

    def demultiplex(self, chunk: bytes) -> None:
        """Docker frames a non-tty stream: 8-byte header (stream, size), then the payload."""
        self.pending += chunk
        start = 0  # the frames taken are dropped once, after the loop: a chunk may hold hundreds
        while len(self.pending) - start >= FRAME_HEADER.size:
            stream, size = FRAME_HEADER.unpack_from(self.pending, start)
            if len(self.pending) - start < FRAME_HEADER.size + size:
                break
            payload = self.pending[start + FRAME_HEADER.size : start + FRAME_HEADER.size + size]
            start += FRAME_HEADER.size + size
            if stream == STDERR_STREAM:
                self.stderr = (self.stderr + payload)[-4000:]
            else:
                self.stdout += payload
        del self.pending[:start]

    def stderr_tail(self) -> str:
        return self.stderr[-2000:].decode("utf-8", "replace").strip()

    def alive(self) -> bool:
        """Whether it can take a job after waiting idle: not spoilt, and nothing on its socket (an end of
        file: the container was stopped meanwhile; output: a runner that spoke unasked)."""
        if self.contaminated:
            return False
        waits_s = self.socket.gettimeout()
        self.socket.settimeout(0)  # a peek that does not wait
        try:
            self.socket.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return True  # nothing to read: it waits for a job
        except OSError:
            return False
        finally:
            self.socket.settimeout(waits_s)
        return False

    def kill(self) -> None:
        self.api.kill(self.container_id)

    def close(self) -> None:
        try:
            sock = getattr(self, "socket", None)
            if sock is not None:
                sock.close()
        finally:
            with contextlib.suppress(DockerException):  # already gone
                self.api.remove_container(self.container_id, force=True)


# A batch opens its own backend, and each started its containers afresh: 40 one-program batches of Python
# took 8.8 s against 2.7 s for one batch of 40 (bwrap: 3.9 against 2.9 s), and the engine (dockerd,
# containerd) spent ~90 ms of CPU a batch; an audit's later rounds run many small batches in the image
# profiles. A batch's idle containers now wait for the next batch of this process with the same key
# (``DockerLauncher.warm_key``). They go when the process does: its end closes their attach sockets, each
# runner exits on that end of file, and its container is removed (``auto_remove``), as after a kill -9.
WARM_CONTAINERS: WarmRunners[ContainerRunner] = WarmRunners(keep=4 * max(2, os.cpu_count() or 1))

# image id -> tool -> its version line (None: absent), probed once per process: an image's id is the
# digest of its content, so what it holds never changes under it.
TOOLS_IN_IMAGE: dict[str, dict[str, str | None]] = {}


def forget_containers_in_child() -> None:
    """A forked child shares the warm containers' sockets and the engine clients' connections with its
    parent: it starts its own."""
    WARM_CONTAINERS.forget()
    _clients.clear()


os.register_at_fork(after_in_child=forget_containers_in_child)

_RUNNER_SOURCE: str | None = None


def runner_source() -> str:
    """The runner's code, passed as `python3 -c`: a read-only root accepts neither put_archive nor a copy."""
    global _RUNNER_SOURCE
    if _RUNNER_SOURCE is None:
        _RUNNER_SOURCE = RUNNER_SOURCE_PATH.read_text(encoding="utf-8")
    return _RUNNER_SOURCE


@dataclass
class ImageFacts:
    """What we learnt about one image: its digest, labels and the tools (with versions) it has."""

    image_id: str
    digest: str
    labels: dict[str, str]
    cache: CompileCache  # compiled artifacts belong to the image they were built in (compiler, C library)
    tools: dict[str, str | None] = field(default_factory=dict)  # tool -> its --version line; None: absent
    memo: RunMemo = field(default_factory=RunMemo)


class DockerBackend(RunnerCore["DockerLauncher"]):
    """The runner core over warm containers (see the module docstring)."""

    def __init__(
        self,
        workers: int = 1,
        cache_dir: Path | str | None = None,
        recycle_after: int = RECYCLE_AFTER_PROGRAMS,
    ) -> None:
        super().__init__(DockerLauncher(cache_dir=cache_dir, recycle_after=recycle_after), workers)


class DockerLauncher:
    """Warm containers per shape (image, memory and pids budget), and what each image holds."""

    def __init__(
        self, cache_dir: Path | str | None = None, recycle_after: int = RECYCLE_AFTER_PROGRAMS
    ) -> None:
        self.cache_root = CompileCache(cache_dir).root  # its default and SURGE_COMPILE_CACHE, as bwrap's
        self.client = engine_client()  # the engine first: without it nothing else matters
        self.engine = engine_key()
        self.helper = static_spawn_helper(self.cache_root)
        self.api = self.client.api
        self.name = NAME
        self.recycle_after = recycle_after
        self.pools: dict[ContainerShape, queue.Queue[ContainerRunner]] = {}
        self.places: dict[ContainerShape, ImagePlace] = {}  # one per shape: the core holds a runner per place
        self.all_runners: list[ContainerRunner] = []
        self.images: dict[str, ImageFacts | None] = {}
        self.lock = threading.Lock()
        self.closed = False
        self.containers_started = 0

    def place(self, request: RunRequest) -> ImagePlace:
        image = image_for(request.program.language, request.profile)
        facts = self.image_facts(image)
        if facts is None:
            raise Unplaceable(Verdict.TOOLCHAIN_MISSING, f"image {image} is not built: {BUILD_HINT}")
        shape = ContainerShape.of(image, request)
        with self.lock:
            if shape not in self.places:
                self.places[shape] = ImagePlace(self, facts, shape)
            return self.places[shape]

    # -- images ----------------------------------------------------------------------------------

    def image_facts(self, image: str) -> ImageFacts | None:
        with self.lock:
            if image not in self.images:
                self.images[image] = self.inspect_image(image)
            return self.images[image]

    def inspect_image(self, image: str) -> ImageFacts | None:
        try:
            attrs = self.api.inspect_image(image)
        except ImageNotFound:
            return None
        digests = attrs.get("RepoDigests") or []
        # Locally built images have no registry digest: the image id is the content digest of its config.
        digest = digests[0] if digests else f"{image}@{attrs['Id']}"
        cache = CompileCache(self.cache_root / "docker" / attrs["Id"].removeprefix("sha256:")[:16])
        labels = attrs["Config"].get("Labels") or {}
        tools = TOOLS_IN_IMAGE.setdefault(attrs["Id"], {})
        return ImageFacts(image_id=attrs["Id"], digest=digest, labels=labels, cache=cache, tools=tools)

    # -- containers ------------------------------------------------------------------------------

    def acquire(self, shape: ContainerShape) -> ContainerRunner:
        with self.lock:
            pool = self.pools.setdefault(shape, queue.Queue())
        try:
            return pool.get_nowait()
        except queue.Empty:
            pass
        runner = WARM_CONTAINERS.take(self.warm_key(shape))
        if runner is None:
            try:
                runner = ContainerRunner(self.api, shape, self.helper, self.recycle_after)
            except DockerException as error:  # a container that would not start
                raise SandboxCrash(str(error)) from None
            with self.lock:
                self.containers_started += 1
        with self.lock:
            self.all_runners.append(runner)
        return runner

    def release(self, runner: ContainerRunner, broken: bool) -> None:
        """Give a runner back after a program; recycle it when broken, used up or possibly contaminated."""
        if broken:
            self.discard(runner)
            return
        if runner.contaminated or runner.jobs >= self.recycle_after or self.closed:
            self.discard(runner)
            return
        self.pools[runner.shape].put(runner)

    def discard(self, runner: ContainerRunner) -> None:
        runner.close()
        with self.lock:
            if runner in self.all_runners:
                self.all_runners.remove(runner)

    def close(self) -> None:
        """Idle containers stay warm for the next backend of this process (``WARM_CONTAINERS``); the rest,
        those a program may have spoilt or that have run their share, are removed."""
        if self.closed:
            return
        self.closed = True
        idle = [runner for pool in self.pools.values() for runner in pool.queue]  # ``release`` kept them
        for runner in idle:
            WARM_CONTAINERS.give(self.warm_key(runner.shape), runner)
        for runner in self.all_runners:
            if runner not in idle:
                runner.close()
        self.all_runners.clear()

    def warm_key(self, shape: ContainerShape) -> tuple[str, ...]:
        """What a container's start depends on: the engine, the image (by id: a tag built again names
        another), its budget, the spawn helper it mounts, and how many programs it may run."""
        facts = self.images.get(shape.image)
        image_id = facts.image_id if facts is not None else ""
        return (*map(str, self.engine), shape.image, image_id, str(shape.memory_mib), str(shape.pids),
                str(self.helper), str(self.recycle_after))  # fmt: skip


def static_spawn_helper(cache_root: Path) -> Path:
    """The spawn helper every container mounts: static, since it runs on each image's own C library."""
    helper = spawn_helper(cache_root)
    if helper is None or not is_static(helper):
        problem = "cannot be built" if helper is None else "is not static"
        raise SandboxUnavailable(
            f"the spawn helper (sandboxes/inner/become.c) that puts up the containers' seccomp filter "
            f"{problem}: refusing to run untrusted code without it",
            hint=HELPER_HINT,
        )
    return helper


class ImagePlace:
    """Where a request runs under Docker: containers of one shape, the tools and caches of its image."""

    def __init__(self, launcher: DockerLauncher, facts: ImageFacts, shape: ContainerShape) -> None:
        self.launcher = launcher
        self.facts = facts
        self.shape = shape
        self.cache = facts.cache
        self.memo = facts.memo
        self.image_digest: str | None = facts.digest

    def has_tool(self, tool: str) -> bool:
        """Probed once per image, through a runner of this shape."""
        if tool not in self.facts.tools:
            self.facts.tools[tool] = self.probe(tool)
        return self.facts.tools[tool] is not None

    def tool_version(self, tool: str) -> str | None:
        return self.facts.tools.get(tool)

    def acquire(self) -> ContainerRunner:
        return self.launcher.acquire(self.shape)

    def release(self, runner: ContainerRunner, broken: bool) -> None:
        self.launcher.release(runner, broken)

    def probe(self, tool: str) -> str | None:
        phase: Phase = {
            "name": "probe",
            "argv": [tool, version_flag(tool)],
            "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"},
            "limits": {"cpu_s": 20, "wall_s": 30, "memory_mib": 2048, "processes": 64},
        }
        runner = self.acquire()
        try:
            result = runner.call({"id": f"probe {tool}", "phases": [phase]}, timeout_s=PROBE_TIMEOUT_S)
        except SandboxCrash:
            self.release(runner, broken=True)
            raise
        self.release(runner, broken=False)
        run = result["phases"][0]["runs"][0]
        if run["status"] == "exec_failed":
            return None
        lines = (run["stdout"].strip() or run["stderr"].strip()).splitlines()
        return lines[0].strip() if lines else ""


# -- what the pipeline asks before it runs anything (sandboxes/backends/registry.py) ------------------

MISSING_IMAGE = "missing"  # an image not built yet: the run says so; building it makes a new run id


def image_identity() -> Callable[[RunRequest], str]:
    """The id (content digest of its configuration) of the image a request runs in: one connection per
    plan, each image looked up once."""
    api = connect().api
    seen: dict[str, str] = {}

    def identity(request: RunRequest) -> str:
        image = image_for(request.program.language, request.profile)
        if image not in seen:
            try:
                seen[image] = str(api.inspect_image(image)["Id"])
            except Exception:  # noqa: BLE001 - not built yet: the run says so; building it makes a new id
                seen[image] = f"{image}:{MISSING_IMAGE}"
        return content_id("image", seen[image])

    return identity


def missing(unsafe: bool) -> str | None:
    """Why the engine cannot be used (a reason of its own when the fix is not START_HINT), or None."""
    try:
        connect(timeout_s=10).close()
    except SandboxUnavailable as error:
        return str(error) if error.hint == START_HINT else f"{error} ({error.hint})"
    return None


def open_docker(unsafe: bool, workers: int) -> DockerBackend:
    return DockerBackend(workers=workers)  # isolation is the containers': --unsafe changes nothing


SPEC = BackendSpec(
    name=NAME,
    open=open_docker,
    identity=image_identity,
    missing=missing,
    fix=START_HINT,
    runs_images=True,
    status=docker_status,
)
