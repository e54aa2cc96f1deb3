"""Docker backend costs against the local bwrap sandbox, on the same programs in the same run.

Figures:
  bwrap_per_program_ms            the baseline: wall time per program on the bwrap backend (warm runner)
  docker_warm_per_program_ms      the same programs through warm containers
  docker_warm_overhead_ms         docker_warm - bwrap, per program (goal: <= 50 ms)
  docker_warm_vs_bwrap_ratio      docker_warm / bwrap
  docker_fresh_per_program_ms     a new container for every program (recycle_after=1)
  docker_fresh_vs_warm_ratio      docker_fresh / docker_warm: what warm containers save
  docker_container_start_ms       creating + starting one hardened container until its runner is ready

Programs: Python one-liners and small C programs (each compiled: the compile caches start empty on both
backends). SURGE_BENCH_DOCKER_PROGRAMS sets how many (default 12).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.records import EnvironmentProfile, Program, RunRequest  # noqa: E402

PROFILE = EnvironmentProfile(name="default")
PROGRAMS = int(os.environ.get("SURGE_BENCH_DOCKER_PROGRAMS", "12"))


def requests(salt: str) -> list[RunRequest]:
    """Distinct programs (a salt in each), so neither compile cache nor shared runs skip any work."""
    programs = []
    for index in range(PROGRAMS):
        if index % 3 == 2:
            source = f'#include <stdio.h>\nint main(void){{ printf("%d\\n", {index}); }} /* {salt} */\n'
            programs.append(Program.single("c", source))
        else:
            programs.append(Program.single("python", f"print({index})  # {salt}\n"))
    return [RunRequest(program=program, profile=PROFILE) for program in programs]


def per_program_ms(backend: Any, salt: str) -> float:
    warm_up = RunRequest(program=Program.single("python", f"print('warm {salt}')\n"), profile=PROFILE)
    list(backend.run_batch([warm_up]))  # start the runner/container first
    batch = requests(salt)
    started = time.perf_counter()
    results = list(backend.run_batch(batch))
    elapsed = time.perf_counter() - started
    failed = [r.verdict for r in results if r.verdict != "ok"]
    if failed:
        raise RuntimeError(f"bench programs failed: {failed}")
    return elapsed / len(batch) * 1000


def container_start_ms(cache: Path) -> float:
    from sandboxes.backends.docker import ContainerRunner, ContainerShape

    with docker_backend(cache) as backend:
        shape = ContainerShape.of("surge/python:bookworm", RunRequest(program=Program.single("python", ""),
                                                                       profile=PROFILE))  # fmt: skip
        started = time.perf_counter()
        runner = ContainerRunner(backend.launcher.api, shape)
        elapsed = time.perf_counter() - started
        runner.close()
    return elapsed * 1000


def docker_backend(cache: Path, recycle_after: int | None = None) -> Any:
    from sandboxes.backends.docker import RECYCLE_AFTER_PROGRAMS, DockerBackend

    return DockerBackend(cache_dir=cache, recycle_after=recycle_after or RECYCLE_AFTER_PROGRAMS)


def run() -> dict[str, float]:
    from pipeline.errors import SandboxUnavailable
    from sandboxes.backends.bwrap import BwrapBackend
    from sandboxes.backends.docker import docker_status

    status = docker_status()
    if not status["available"] or not any(i.startswith("surge/python:bookworm ") for i in status["images"]):
        print(f"   skipped: Docker or its images are missing ({status.get('hint', 'make images')})")
        return {}
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        try:
            with BwrapBackend(cache_dir=cache / "bwrap") as bwrap:
                bwrap_ms = per_program_ms(bwrap, "bwrap")
        except SandboxUnavailable as missing:
            print(f"   skipped: no bwrap baseline ({missing})")
            return {}
        with docker_backend(cache / "warm") as warm:
            warm_ms = per_program_ms(warm, "warm")
        with docker_backend(cache / "fresh", recycle_after=1) as fresh:
            fresh_ms = per_program_ms(fresh, "fresh")
        start_ms = container_start_ms(cache / "start")
    figures = {
        "bwrap_per_program_ms": bwrap_ms,
        "docker_warm_per_program_ms": warm_ms,
        "docker_warm_overhead_ms": warm_ms - bwrap_ms,
        "docker_warm_vs_bwrap_ratio": warm_ms / bwrap_ms,
        "docker_fresh_per_program_ms": fresh_ms,
        "docker_fresh_vs_warm_ratio": fresh_ms / warm_ms,
        "docker_container_start_ms": start_ms,
    }
    print(f"   warm containers: {figures['docker_warm_vs_bwrap_ratio']:.2f}x bwrap; "
          f"fresh container per program: {figures['docker_fresh_vs_warm_ratio']:.2f}x warm")  # fmt: skip
    return figures


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<40} {value:12.3f}")
