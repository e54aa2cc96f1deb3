"""Sandbox speed, as ratios measured in one run: per-program overhead of a warm bwrap batch against the
same executions bare (bench/bare.py), and the compile cache's speed-up. `run() -> dict` (bench/run_all.py).

Figures:
  samples_batch_vs_bare_ratio   SURGE's ml/cl/dr samples (CORPUS_ROUNDS copies of each, made distinct
                                by a comment) through one fresh bwrap backend, against the same compiles
                                and runs bare. A comment leaves a binary unchanged, so the sandbox runs
                                identical binaries once (its run memo): the bare side skips those runs too
  sandbox_overhead_ms           per Python program: warm batch minus the same programs bare (goal: <= 1.0)
  batch_vs_bare_ratio           the same two, as a ratio
  c_program_overhead_ms         per C program run from the compile cache, minus the same binary bare
  compile_cache_speedup         a batch of 4 C compiles + runs, cold against the same batch from the cache

The two overheads and the ratio are medians over OVERHEAD_ROUNDS rounds, each a sandboxed batch and then
the same executions bare: on a shared machine whose load changes by the second, one batch against one
bare loop moved the figure by +-10 ms between runs, while sandboxed and bare alternate here and each
round's two halves see nearly the same load. Each round runs programs of its own (nothing shared).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare import executions, replay_seconds  # noqa: E402
from harness import TINY, require_tools, size  # noqa: E402

from pipeline.records import ExecutionSetting, Limits, Program, RunRequest, RunResult  # noqa: E402
from sandboxes.backends.bwrap import BwrapBackend  # noqa: E402
from sandboxes.languages import parse_language  # noqa: E402
from sandboxes.profiles import get_profile  # noqa: E402
from sources import SAMPLES  # noqa: E402  (bundled: the repository needs nothing beside it)

PROGRAMS = size(30, 3)
OVERHEAD_ROUNDS = size(7, 1)
CORPUS_ROUNDS = size(2, 1)
PYTHON_SOURCE = "print(6 * 7)\n"
C_SOURCE = '#include <stdio.h>\nint main(void) { puts("42"); return 0; }\n'
FIGURES = (
    "samples_batch_vs_bare_ratio",
    "sandbox_overhead_ms",
    "batch_vs_bare_ratio",
    "c_program_overhead_ms",
    "compile_cache_speedup",
)


def sandboxed(backend: BwrapBackend, requests: list[RunRequest]) -> tuple[float, list[RunResult]]:
    """(wall s, results) of one batch on a warm backend (the runner started by a program of its own)."""
    warm = RunRequest(program=Program.single("python", "pass\n"), profile=requests[0].profile)
    list(backend.run_batch([warm]))
    started = time.perf_counter()
    results = list(backend.run_batch(requests))
    return time.perf_counter() - started, results


def bare_s(requests: list[RunRequest], results: list[RunResult], workers: int) -> float:
    return replay_seconds([executions(requests, results)], workers).seconds


def overhead_rounds(backend: BwrapBackend, batches: list[list[RunRequest]]) -> tuple[float, float]:
    """(median overhead per program in ms, median sandboxed / bare ratio) over one round per batch: the
    batch on the warm backend, then the same executions bare."""
    overheads, ratios = [], []
    for requests in batches:
        boxed, results = sandboxed(backend, requests)
        bare = bare_s(requests, results, backend.workers)
        overheads.append((boxed - bare) / len(requests) * 1000)
        ratios.append(boxed / bare)
    return statistics.median(overheads), statistics.median(ratios)


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
                # the release spells a language as upstream does ("C"); a program takes the registry's name
                language = parse_language(features["language"])
                corpus.append((Program.single(language, record["question"]), ExecutionSetting()))
    return corpus[::3] if TINY else corpus  # tiny: one program of each subset


def distinct_copy(program: Program, setting: ExecutionSetting, copy: int) -> tuple[Program, ExecutionSetting]:
    comment = "#" if program.language.value == "python" else "//"
    source = f"{program.files[0].content}\n{comment} copy {copy}\n"
    return Program.single(program.language, source), setting


def run() -> dict[str, float]:
    require_tools("bwrap")
    profile = get_profile("default")
    limits = Limits()
    with tempfile.TemporaryDirectory() as scratch, BwrapBackend(cache_dir=Path(scratch) / "cache") as backend:
        python_batches = [
            [
                RunRequest(
                    program=Program.single("python", PYTHON_SOURCE, argv=(f"{round_}-{i}",)),
                    profile=profile,
                    limits=limits,
                )
                for i in range(PROGRAMS)
            ]
            for round_ in range(OVERHEAD_ROUNDS)
        ]
        python_overhead_ms, python_ratio = overhead_rounds(backend, python_batches)
        settings = [ExecutionSetting(extra_flags=(f"-DN={i}",)) for i in range(4)]
        compile_requests = [
            RunRequest(program=Program.single("c", C_SOURCE), profile=profile, setting=s) for s in settings
        ]
        started = time.perf_counter()
        list(backend.run_batch(compile_requests))
        cold = time.perf_counter() - started
        # the compile cache alone: without its run memo the second batch runs its binaries again
        backend.launcher.memo = type(backend.launcher.memo)()
        started = time.perf_counter()
        list(backend.run_batch(compile_requests))
        warm = time.perf_counter() - started
        c_batches = [
            [
                RunRequest(
                    program=Program.single("c", C_SOURCE, stdin=f"{round_}-{i}"),
                    profile=profile,
                    limits=limits,
                )
                for i in range(PROGRAMS)
            ]
            for round_ in range(OVERHEAD_ROUNDS)
        ]
        list(backend.run_batch(c_batches[0][:1]))  # its compile: every program after runs from the cache
        c_overhead_ms, _ = overhead_rounds(backend, c_batches)
    corpus = [distinct_copy(p, s, n) for n in range(CORPUS_ROUNDS) for p, s in sample_programs()]
    corpus_requests = [RunRequest(program=p, setting=s, profile=profile) for p, s in corpus]
    with tempfile.TemporaryDirectory() as scratch, BwrapBackend(cache_dir=Path(scratch) / "cache") as fresh:
        # a fresh backend: cold compile cache and run memo, as the bare side starts with nothing
        started = time.perf_counter()
        corpus_results = list(fresh.run_batch(corpus_requests))
        corpus_boxed = time.perf_counter() - started
        corpus_bare = bare_s(corpus_requests, corpus_results, fresh.workers)
    return {
        "samples_batch_vs_bare_ratio": round(corpus_boxed / corpus_bare, 3),
        "sandbox_overhead_ms": round(python_overhead_ms, 3),
        "batch_vs_bare_ratio": round(python_ratio, 3),
        "c_program_overhead_ms": round(c_overhead_ms, 3),
        "compile_cache_speedup": round(cold / warm, 2),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(run(), indent=2) + "\n")
