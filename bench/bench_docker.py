"""Docker backend costs against the local bwrap sandbox, on the same programs in the same run.

Figures:
  bwrap_per_program_ms            the baseline: wall time per program on the bwrap backend (warm runner)
  docker_warm_per_program_ms      the same programs through warm containers
  docker_warm_overhead_ms         docker_warm - bwrap, per program (goal: <= 15 ms)
  docker_warm_vs_bwrap_ratio      docker_warm / bwrap
  docker_fresh_per_program_ms     a new container for every program (recycle_after=1)
  docker_fresh_vs_warm_ratio      docker_fresh / docker_warm: what warm containers save
  docker_container_start_ms       creating + starting one hardened container until its runner is ready
  bwrap_batch_ms                  a one-program batch in a backend opened for it, as a job opens one per
                                  batch (after the process's first: its runner kept warm in between)
  docker_batch_ms                 the same through Docker (its container kept warm in between)
  docker_batch_overhead_ms        docker_batch - bwrap_batch: what a batch costs on Docker beyond bwrap

Programs: Python one-liners and small C programs (each compiled: the compile caches start empty on every
backend), one worker on each. Before the clock, each backend runs one Python and one C program of its
own: bwrap has one runner for both languages, Docker a container per image, and the C image's start
belongs to docker_container_start_ms, not to the warm per-program time. SURGE_BENCH_DOCKER_PROGRAMS sets
how many programs a batch has (default 12).

bwrap and warm containers run ROUNDS batches each, alternately (which goes first alternates too), every
batch of programs of its own: the per-program figures are medians, the overhead the median of the
rounds' differences. On this shared machine one batch each, a minute apart, moved the overhead between
-8 and +23 ms from run to run; alternating, both sides see nearly the same load.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Skip, require_tools, size  # noqa: E402

from pipeline.records import EnvironmentProfile, Program, RunRequest  # noqa: E402

PROFILE = EnvironmentProfile(name="default")
PROGRAMS = size(12, 3, "SURGE_BENCH_DOCKER_PROGRAMS")
ROUNDS = size(5, 1)
IMAGES = ("surge/cpp:bookworm", "surge/python:bookworm")  # profile "default": its C and Python images
FIGURES = (
    "bwrap_per_program_ms",
    "docker_warm_per_program_ms",
    "docker_warm_overhead_ms",
    "docker_warm_vs_bwrap_ratio",
    "docker_fresh_per_program_ms",
    "docker_fresh_vs_warm_ratio",
    "docker_container_start_ms",
    "bwrap_batch_ms",
    "docker_batch_ms",
    "docker_batch_overhead_ms",
)
BATCHES = size(10, 2)  # one-program batches a side, each in a backend of its own


def c_program(text: str, salt: str) -> Program:
    return Program.single(
        "c", f'#include <stdio.h>\nint main(void){{ printf("%s\\n", "{text}"); }} /* {salt} */\n'
    )


def requests(salt: str) -> list[RunRequest]:
    """Distinct programs (a salt in each), so neither compile cache nor shared runs skip any work."""
    programs = []
    for index in range(PROGRAMS):
        if index % 3 == 2:
            programs.append(c_program(str(index), salt))
        else:
            programs.append(Program.single("python", f"print({index})  # {salt}\n"))
    return [RunRequest(program=program, profile=PROFILE) for program in programs]


def warm_up(backend: Any, salt: str) -> None:
    """A Python and a C program of the backend's own: its runners (a container per image) start here."""
    programs = [Program.single("python", f"print('warm {salt}')\n"), c_program("warm", salt)]
    list(backend.run_batch([RunRequest(program=p, profile=PROFILE) for p in programs]))


def per_program_ms(backend: Any, salt: str, warm: bool = True, programs: int | None = None) -> float:
    if warm:
        warm_up(backend, salt)
    batch = requests(salt)[:programs]
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
        launcher = backend.launcher
        shape = ContainerShape.of(
            IMAGES[1], RunRequest(program=Program.single("python", ""), profile=PROFILE)
        )
        started = time.perf_counter()
        runner = ContainerRunner(launcher.api, shape, launcher.helper)
        elapsed = time.perf_counter() - started
        runner.close()
    return elapsed * 1000


def batch_ms(open_backend: Any, side: str) -> float:
    """The median wall time of a one-program batch in a backend opened for it (after one such batch
    whose backend started the runner or container the later ones find warm)."""
    times = []
    for number in range(BATCHES + 1):
        started = time.perf_counter()
        with open_backend() as backend:
            per_program_ms(backend, f"{side} batch {number}", warm=False, programs=1)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[1:])


def docker_backend(cache: Path, recycle_after: int | None = None) -> Any:
    from sandboxes.backends.docker import RECYCLE_AFTER_PROGRAMS, DockerBackend

    return DockerBackend(cache_dir=cache, recycle_after=recycle_after or RECYCLE_AFTER_PROGRAMS)


def require_docker_images() -> dict[str, Any]:
    """The engine's status, once it has the images the bench runs."""
    from sandboxes.backends.docker import docker_status

    status = docker_status()
    if not status["available"]:
        raise Skip(f"needs a running Docker engine: {status.get('hint', '')}")
    present = {line.split()[0] for line in status["images"]}
    missing = [image for image in IMAGES if image not in present]
    if missing:
        raise Skip(
            f"needs the images {', '.join(missing)}: `bash dockerfiles/build.sh --minimal` (make images)"
        )
    return status


def run() -> dict[str, float]:
    from sandboxes.backends.bwrap import BwrapBackend

    require_tools("bwrap")  # the baseline
    engine = require_docker_images()
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder)
        with BwrapBackend(cache_dir=cache / "bwrap") as bwrap, docker_backend(cache / "warm") as warm:
            warm_up(bwrap, "bwrap")
            warm_up(warm, "warm")
            rounds = []
            for number in range(ROUNDS):
                order = [("bwrap", bwrap), ("warm", warm)]
                if number % 2:
                    order.reverse()
                timed = {name: per_program_ms(side, f"{name} {number}", warm=False) for name, side in order}
                rounds.append((timed["bwrap"], timed["warm"]))
        bwrap_ms = statistics.median(b for b, _ in rounds)
        warm_ms = statistics.median(w for _, w in rounds)
        overhead_ms = statistics.median(w - b for b, w in rounds)
        with docker_backend(cache / "fresh", recycle_after=1) as fresh:
            fresh_ms = per_program_ms(fresh, "fresh")
        start_ms = container_start_ms(cache / "start")
        bwrap_batch = batch_ms(lambda: BwrapBackend(cache_dir=cache / "bwrap"), "bwrap")
        docker_batch = batch_ms(lambda: docker_backend(cache / "warm"), "docker")
    figures = {
        "bwrap_per_program_ms": bwrap_ms,
        "docker_warm_per_program_ms": warm_ms,
        "docker_warm_overhead_ms": overhead_ms,
        "docker_warm_vs_bwrap_ratio": warm_ms / bwrap_ms,
        "docker_fresh_per_program_ms": fresh_ms,
        "docker_fresh_vs_warm_ratio": fresh_ms / warm_ms,
        "docker_container_start_ms": start_ms,
        "bwrap_batch_ms": bwrap_batch,
        "docker_batch_ms": docker_batch,
        "docker_batch_overhead_ms": docker_batch - bwrap_batch,
    }
    print(f"   warm containers: {figures['docker_warm_vs_bwrap_ratio']:.2f}x bwrap; "
          f"fresh container per program: {figures['docker_fresh_vs_warm_ratio']:.2f}x warm; "
          f"the engine's storage driver: {engine['storage_driver']}")  # fmt: skip
    return figures


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<40} {value:12.3f}")
