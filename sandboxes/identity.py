"""Toolchain identity for run ids: which compiler or image a request will actually use (issue 10).

A run id must change when the result can change: a new g++ on the host, another Docker image behind the
same tag. Planning asks here once per (language, compiler, profile) and writes the answer into
``RunRequest.toolchain_id``:

- bwrap: the version lines of the tools the request needs (``spec.tools``), as the sandbox sees them;
  a missing tool counts as "missing", so installing it makes a new run instead of a stale
  ``toolchain_missing`` row.
- docker: the image id (the content digest of its configuration) of the image the request runs in.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable

from pipeline.errors import SandboxUnavailable
from pipeline.records import EnvironmentProfile, Language, RunRequest, content_id
from sandboxes.languages import spec_for
from sandboxes.toolchains import tool_version

MISSING = "missing"


def bwrap_identity(request: RunRequest) -> str:
    spec = spec_for(request.program.language)
    tools = spec.tools(request.setting, request.profile)
    return content_id("tools", {tool: tool_version(tool) or MISSING for tool in tools})


def docker_identity_probe() -> Callable[[RunRequest], str]:
    """One Docker connection for a whole plan; image ids looked up once per image."""
    from sandboxes.backends.docker import connect, image_for

    api = connect().api
    seen: dict[str, str] = {}

    def identity(request: RunRequest) -> str:
        image = image_for(request.program.language, request.profile)
        if image not in seen:
            try:
                seen[image] = str(api.inspect_image(image)["Id"])
            except Exception:  # noqa: BLE001 - not built yet: the run says so; building it makes a new id
                seen[image] = f"{image}:{MISSING}"
        return content_id("image", seen[image])

    return identity


def backend_for(profile: EnvironmentProfile, chosen: str, unsafe: bool) -> str:
    """Profiles whose toolchains live in images run in Docker; the others on ``chosen``. Without
    bubblewrap, ``--unsafe`` runs on the host, and the run id says so ("unsafe-local")."""
    if profile.image:
        return "docker"
    if chosen == "bwrap" and unsafe and shutil.which("bwrap") is None:
        return "unsafe-local"
    return chosen


def check_available(backends: set[str]) -> None:
    """Fail before planning when a backend cannot start here (not per batch, with a traceback)."""
    if "bwrap" in backends and shutil.which("bwrap") is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: no sandbox for --backend bwrap",
            hint="apt-get install bubblewrap (or make setup); trusted code only: add --unsafe",
        )
    if "docker" in backends:
        from sandboxes.backends.docker import connect

        connect()  # raises SandboxUnavailable with the fix (start the engine)


def identify(requests: Iterable[RunRequest], chosen: str, unsafe: bool = False) -> list[RunRequest]:
    """The requests with ``backend`` and ``toolchain_id`` filled in: their run ids then say how they run."""
    probes: dict[str, Callable[[RunRequest], str]] = {}
    known: dict[tuple[str, str, str, str], str] = {}
    identified = []
    for request in requests:
        backend = backend_for(request.profile, chosen, unsafe)
        key = (
            backend,
            request.program.language.value,
            request.setting.setting_id,
            request.profile.profile_id,
        )
        if key not in known and request.program.language is Language.LEAN4:
            from sandboxes.lean.backend import lean_identity  # proofs go to the REPL pool on any backend

            known[key] = lean_identity()
        if key not in known:
            if backend not in probes:
                probes[backend] = docker_identity_probe() if backend == "docker" else bwrap_identity
            known[key] = probes[backend](request)
        identified.append(request.model_copy(update={"backend": backend, "toolchain_id": known[key]}))
    return identified
