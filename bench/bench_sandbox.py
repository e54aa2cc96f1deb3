"""Sandbox speed, as ratios measured in one run: per-program overhead of a warm bwrap batch vs a bare
subprocess of the same program, and the compile cache's speed-up. `run() -> dict` (bench/run_all.py)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.records import ExecutionSetting, Limits, Program, RunRequest
from sandboxes.backends.bwrap import BwrapBackend
from sandboxes.profiles import get_profile

PROGRAMS = 30
PYTHON_SOURCE = "print(6 * 7)\n"
C_SOURCE = '#include <stdio.h>\nint main(void) { puts("42"); return 0; }\n'


def bare_seconds(argv: list[str], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run(argv, capture_output=True, check=True)
    return time.perf_counter() - started


def sandboxed_seconds(backend: BwrapBackend, requests: list[RunRequest]) -> float:
    list(backend.run_batch(requests[:1]))  # warm: the runner is started once per batch
    started = time.perf_counter()
    list(backend.run_batch(requests))
    return time.perf_counter() - started


def run() -> dict[str, float]:
    profile = get_profile("default")
    limits = Limits()
    with tempfile.TemporaryDirectory() as scratch, BwrapBackend(cache_dir=Path(scratch) / "cache") as backend:
        python_requests = [
            RunRequest(
                program=Program.single("python", PYTHON_SOURCE, argv=(str(i),)),
                profile=profile,
                limits=limits,
            )
            for i in range(PROGRAMS)
        ]
        source = Path(scratch) / "p.py"
        source.write_text(PYTHON_SOURCE)
        bare = bare_seconds(["/usr/bin/python3", str(source)], PROGRAMS)
        boxed = sandboxed_seconds(backend, python_requests)
        binary = Path(scratch) / "c"
        (Path(scratch) / "c.c").write_text(C_SOURCE)
        subprocess.run(["gcc", str(Path(scratch) / "c.c"), "-o", str(binary)], check=True)
        c_bare = bare_seconds([str(binary)], PROGRAMS)
        c_requests = [
            RunRequest(program=Program.single("c", C_SOURCE, stdin=str(i)), profile=profile, limits=limits)
            for i in range(PROGRAMS)
        ]
        settings = [ExecutionSetting(extra_flags=(f"-DN={i}",)) for i in range(4)]
        compile_requests = [
            RunRequest(program=Program.single("c", C_SOURCE), profile=profile, setting=s) for s in settings
        ]
        started = time.perf_counter()
        list(backend.run_batch(compile_requests))
        cold = time.perf_counter() - started
        backend.memo = type(backend.memo)()  # measure the compile cache alone, not shared runs
        started = time.perf_counter()
        list(backend.run_batch(compile_requests))
        warm = time.perf_counter() - started
        c_boxed = sandboxed_seconds(backend, c_requests)
    return {
        "sandbox_overhead_ms": round((boxed - bare) / PROGRAMS * 1000, 3),
        "batch_vs_bare_ratio": round(boxed / bare, 3),
        "c_program_overhead_ms": round((c_boxed - c_bare) / PROGRAMS * 1000, 3),
        "compile_cache_speedup": round(cold / warm, 2),
    }


if __name__ == "__main__":
    import json

    sys.stdout.write(json.dumps(run(), indent=2) + "\n")
