"""One real bwrap backend per test module: the runner's start-up is paid once, as in production."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.records import Limits, PhaseLimits, Program, RunRequest, RunResult
from sandboxes.profiles import get_profile
from tests.conftest import require_tool

SMALL_LIMITS = Limits(
    compile=PhaseLimits(cpu_s=20, wall_s=40, memory_mib=2048),
    run=PhaseLimits(
        cpu_s=1, wall_s=2, memory_mib=256, processes=64, output_bytes=64 << 10, file_size_bytes=1 << 20
    ),
)


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    require_tool("bwrap")
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=tmp_path_factory.mktemp("compile-cache")) as sandbox:
        yield sandbox


def request(program: Program, profile: str = "default", **kw: object) -> RunRequest:
    kw.setdefault("limits", SMALL_LIMITS)
    return RunRequest(program=program, profile=get_profile(profile), **kw)  # type: ignore[arg-type]


def run_one(backend: object, program: Program, **kw: object) -> RunResult:
    return next(iter(backend.run_batch([request(program, **kw)])))  # type: ignore[attr-defined]


def host_processes_matching(needle: str) -> list[int]:
    """Host pids whose command line contains `needle` (detached leftovers would show up here)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def sandbox_uid_processes(backend: object) -> list[int]:
    """Host pids running under this backend's reserved uids (its runners themselves run as root). Docker
    reserves none: its programs are confined to containers, which are removed instead."""
    uids = getattr(backend.launcher, "sandbox_uids", set())  # type: ignore[attr-defined]
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        uid_line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
        state = next((line for line in status.splitlines() if line.startswith("State:")), "State: Z")
        if uid_line and int(uid_line.split()[1]) in uids and state.split()[1] not in ("Z", "X"):
            found.append(int(entry.name))
    return found
