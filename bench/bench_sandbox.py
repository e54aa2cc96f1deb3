"""Sandbox speed, as ratios measured in one run: per-program overhead of a warm bwrap batch vs a bare
subprocess of the same program, and the compile cache's speed-up. `run() -> dict` (bench/run_all.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.records import ExecutionSetting, Limits, Program, RunRequest
from sandboxes.backends.bwrap import BwrapBackend
from sandboxes.languages import WORKDIR, spec_for
from sandboxes.profiles import get_profile

PROGRAMS = 30
CORPUS_ROUNDS = 2
from sources import SAMPLES  # noqa: E402  (bundled: the repository needs nothing beside it)

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


def sample_programs() -> list[tuple[Program, ExecutionSetting]]:
    """SURGE's released ml, cl and dr samples (C, C++, Python), each under its own setting."""
    root = SAMPLES / "surge-released"
    corpus: list[tuple[Program, ExecutionSetting]] = []
    for subset in ("ml", "cl", "dr"):
        path = root / f"{subset}.json"
        if not path.is_file():
            continue
        for record in json.loads(path.read_text()):
            features = record["custom_features"]
            if "key" in features:
                corpus.append(
                    (
                        Program.single("cpp", record["question"]),
                        ExecutionSetting.from_surge_key(features["key"]),
                    )
                )
            else:
                corpus.append((Program.single(features["language"], record["question"]), ExecutionSetting()))
    return corpus


def distinct_copy(program: Program, setting: ExecutionSetting, copy: int) -> tuple[Program, ExecutionSetting]:
    comment = "#" if program.language.value == "python" else "//"
    source = f"{program.files[0].content}\n{comment} copy {copy}\n"
    return Program.single(program.language, source), setting


def bare_loop_seconds(corpus: list[tuple[Program, ExecutionSetting]], scratch: Path) -> float:
    """Compile and run each program on the host with the very same commands, in a plain loop."""
    profile = get_profile("default")
    started = time.perf_counter()
    for index, (program, setting) in enumerate(corpus):
        spec = spec_for(program.language)
        workdir = scratch / f"bare{index}"
        workdir.mkdir()
        for name, text in spec.placed_files(program):
            (workdir / name).write_text(text)

        def here(argv: list[str], workdir: Path = workdir) -> list[str]:
            return [str(workdir) + arg[len(WORKDIR) :] if arg.startswith(WORKDIR) else arg for arg in argv]

        if spec.compiled:
            build = here(spec.compile_argv(program, setting, profile))
            if subprocess.run(build, capture_output=True, cwd=workdir).returncode != 0:
                continue  # a compile error: the sandbox does not run it either
        subprocess.run(here(spec.run_argv(program, setting, profile)), capture_output=True, cwd=workdir)
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
        backend.launcher.memo = type(
            backend.launcher.memo
        )()  # measure the compile cache alone, not shared runs
        started = time.perf_counter()
        list(backend.run_batch(compile_requests))
        warm = time.perf_counter() - started
        c_boxed = sandboxed_seconds(backend, c_requests)
        corpus = [distinct_copy(p, s, n) for n in range(CORPUS_ROUNDS) for p, s in sample_programs()]
        corpus_bare = bare_loop_seconds(corpus, Path(scratch))
    with tempfile.TemporaryDirectory() as scratch, BwrapBackend(cache_dir=Path(scratch) / "cache") as fresh:
        # every copy's source differs (a comment): no compile cache hits, the same work as the bare loop
        corpus_requests = [RunRequest(program=p, setting=s, profile=profile) for p, s in corpus]
        started = time.perf_counter()
        list(fresh.run_batch(corpus_requests))
        corpus_boxed = time.perf_counter() - started
    return {
        "samples_batch_vs_bare_ratio": round(corpus_boxed / corpus_bare, 3) if corpus else 0.0,
        "sandbox_overhead_ms": round((boxed - bare) / PROGRAMS * 1000, 3),
        "batch_vs_bare_ratio": round(boxed / bare, 3),
        "c_program_overhead_ms": round((c_boxed - c_bare) / PROGRAMS * 1000, 3),
        "compile_cache_speedup": round(cold / warm, 2),
    }


if __name__ == "__main__":
    import json

    sys.stdout.write(json.dumps(run(), indent=2) + "\n")
