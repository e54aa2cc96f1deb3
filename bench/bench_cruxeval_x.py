"""CRUXEval-X's cost per program, language by language, compile and run apart; and what the whole benchmark
would cost to audit on this machine. `run() -> dict` (bench/run_all.py).

The programs are the CRUXEval-X plug-in's own test records (examples/surge-cruxeval, upstream's format),
each run as `surge audit` runs it: its harness language (Java with -ea, C# with DEBUG, D with unittests,
Go's test binary), and its mutant beside it. The plug-in and its harness languages are registered in this
process as their entry points would register them. One bwrap batch, two workers, a cold compile cache.

The batch runs twice in one process, in the same window of the machine's load: first with every warm
compiler and seeded cache taken away (each compile cold: the baseline), then as the registry has them
(javac, scalac and tsc kept warm by the runner, Go's build cache and C++'s precompiled header seeded:
sandboxes/inner/warm.py). The
records are run ROUNDS times (a round's sources differ by a trailing comment, so no compile is a cache
hit): a warm compiler's steady cost shows only after its start and first compiles.

Figures (CPU seconds are user + system, per program, the mean over the language's records and mutants):
  cruxeval_x_<stem>_compile_cpu_s       the compile phase (0 for an interpreted language), warm
  cruxeval_x_<stem>_run_cpu_s           the run phase
  cruxeval_x_<stem>_compile_cold_cpu_s  the compile phase with nothing kept warm (stems with a warm
                                        compiler only)
  cruxeval_x_<stem>_warm_start_cpu_s    what a warm compiler's runner pays once: the CPU of its first
                                        compile (a cold compile, the server's start and first compile)
                                        above a steady warm compile's
  cruxeval_x_projected_audit_min        the whole benchmark's programs' own CPU (13,459 programs, each
                                        run with its mutant, at the warm means: 708 programs a
                                        language; a warm compiler's start once per core) over 2 cores,
                                        in minutes: the ideal an audit is measured against
  cruxeval_x_projected_cold_audit_min   the same with every compile cold
  cruxeval_x_batch_wall_vs_ideal        the warm batch's wall time against its programs' CPU over 2 cores
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "surge-cruxeval" / "src"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(PLUGIN))

from harness import TINY, Skip, require_tools  # noqa: E402

from pipeline.audit.convert import convert, load_dataset  # noqa: E402
from pipeline.audit.rows import Conversion  # noqa: E402
from pipeline.records import Limits, Program, ProgramFile, RunRequest, RunResult  # noqa: E402
from sandboxes.profiles import get_profile  # noqa: E402

# Every language whose toolchain `make setup` installs (Julia's is only in the bullseye image, Swift's only
# in trixie's): a declared figure must be a number on any machine the suite runs on.
STEMS = ("cpp", "cs", "d", "go", "java", "js", "lua", "php", "pl", "py", "r", "rb", "rkt", "rs", "scala",
         "sh", "ts")  # fmt: skip
TINY_STEMS = ("py", "sh", "lua")  # a tiny run (the test suite's): the stems it measures; the rest are 0
PROGRAMS_IN_BENCHMARK = 13_459  # CRUXEval-X's programs, all languages (upstream's 19 files)
LANGUAGES_IN_BENCHMARK = 19
CORES = 2
PHASES = ("compile", "run")
WARM_STEMS = ("cpp", "go", "java", "scala", "ts")  # compiled from a warm compiler or a seed
ROUNDS = 1 if TINY else 3
COMMENTS = {"py": "#", "sh": "#", "lua": "--", "pl": "#", "r": "#", "rb": "#", "rkt": ";", "jl": "#"}
FIGURES = (  # written out: the bench test reads them from the source
    "cruxeval_x_cpp_compile_cpu_s",
    "cruxeval_x_cpp_run_cpu_s",
    "cruxeval_x_cs_compile_cpu_s",
    "cruxeval_x_cs_run_cpu_s",
    "cruxeval_x_d_compile_cpu_s",
    "cruxeval_x_d_run_cpu_s",
    "cruxeval_x_go_compile_cpu_s",
    "cruxeval_x_go_run_cpu_s",
    "cruxeval_x_java_compile_cpu_s",
    "cruxeval_x_java_run_cpu_s",
    "cruxeval_x_js_compile_cpu_s",
    "cruxeval_x_js_run_cpu_s",
    "cruxeval_x_lua_compile_cpu_s",
    "cruxeval_x_lua_run_cpu_s",
    "cruxeval_x_php_compile_cpu_s",
    "cruxeval_x_php_run_cpu_s",
    "cruxeval_x_pl_compile_cpu_s",
    "cruxeval_x_pl_run_cpu_s",
    "cruxeval_x_py_compile_cpu_s",
    "cruxeval_x_py_run_cpu_s",
    "cruxeval_x_r_compile_cpu_s",
    "cruxeval_x_r_run_cpu_s",
    "cruxeval_x_rb_compile_cpu_s",
    "cruxeval_x_rb_run_cpu_s",
    "cruxeval_x_rkt_compile_cpu_s",
    "cruxeval_x_rkt_run_cpu_s",
    "cruxeval_x_rs_compile_cpu_s",
    "cruxeval_x_rs_run_cpu_s",
    "cruxeval_x_scala_compile_cpu_s",
    "cruxeval_x_scala_run_cpu_s",
    "cruxeval_x_sh_compile_cpu_s",
    "cruxeval_x_sh_run_cpu_s",
    "cruxeval_x_ts_compile_cpu_s",
    "cruxeval_x_ts_run_cpu_s",
    "cruxeval_x_cpp_compile_cold_cpu_s",
    "cruxeval_x_go_compile_cold_cpu_s",
    "cruxeval_x_java_compile_cold_cpu_s",
    "cruxeval_x_scala_compile_cold_cpu_s",
    "cruxeval_x_ts_compile_cold_cpu_s",
    "cruxeval_x_cpp_warm_start_cpu_s",
    "cruxeval_x_go_warm_start_cpu_s",
    "cruxeval_x_java_warm_start_cpu_s",
    "cruxeval_x_scala_warm_start_cpu_s",
    "cruxeval_x_ts_warm_start_cpu_s",
    "cruxeval_x_projected_audit_min",
    "cruxeval_x_projected_cold_audit_min",
    "cruxeval_x_batch_wall_vs_ideal",
)


def register_plugin() -> None:
    """The subset and its harness languages, as the plug-in's entry points register them."""
    from surge_cruxeval.x.compiled import CPP, GO, D
    from surge_cruxeval.x.harness import CSHARP, JAVA
    from surge_cruxeval.x.subset import SPEC

    from pipeline.subsets import register_subset
    from sandboxes.languages import REGISTRY

    register_subset(SPEC)
    for spec in (JAVA, CSHARP, CPP, D, GO):
        REGISTRY[spec.language] = spec


def conversions(stems: tuple[str, ...]) -> dict[str, list[Conversion]]:
    """The bundled records of each language that convert (prose and absent translations are not programs)."""
    from surge_cruxeval.x.subset import SPEC

    folder = PLUGIN / "surge_cruxeval" / "data" / "cruxeval-x"
    found: dict[str, list[Conversion]] = {}
    for stem in stems:
        records, _ = load_dataset(folder / f"{stem}.json", {SPEC.name})
        found[stem] = [c for r in records if isinstance(c := convert(r), Conversion)]
    return found


def cpu_s(result: RunResult, phase: str) -> float:
    ran = getattr(result, phase)
    return 0.0 if ran is None else ran.cpu_user_s + ran.cpu_sys_s


def in_round(program: Program, stem: str, number: int) -> Program:
    """The program with a trailing comment naming the round: the same compile, another cache key."""
    mark = f"\n{COMMENTS.get(stem, '//')} round {number}\n"
    entry, *rest = program.files
    changed = ProgramFile(path=entry.path, content=entry.content + mark)
    fields = program.model_dump(exclude={"program_id", "files"})  # the id is the new content's
    return Program(**fields, files=(changed, *rest))


@contextmanager
def all_cold() -> Iterator[None]:
    """Every language spec without its warm compiler and seeded cache, while the block runs."""
    from sandboxes.languages import REGISTRY

    saved = dict(REGISTRY)
    for language, spec in saved.items():
        if spec.warm_compiler is not None or spec.seeded_cache is not None:
            REGISTRY[language] = dataclasses.replace(spec, warm_compiler=None, seeded_cache=None)
    try:
        yield
    finally:
        REGISTRY.update(saved)


def run_batch(requests: list[RunRequest]) -> tuple[list[RunResult], float]:
    """One bwrap batch on two workers, with a cold compile cache: the results and the wall time."""
    from sandboxes.backends.bwrap import BwrapBackend

    with (
        tempfile.TemporaryDirectory() as cache,
        BwrapBackend(cache_dir=Path(cache), workers=CORES) as backend,
    ):
        started = time.perf_counter()
        results = list(backend.run_batch(requests))
        return results, time.perf_counter() - started


def run() -> dict[str, float]:
    require_tools("bwrap")
    register_plugin()
    stems = TINY_STEMS if TINY else STEMS
    by_stem = conversions(stems)
    profile = get_profile("default")
    requests: list[tuple[str, RunRequest]] = [
        (stem, RunRequest(program=in_round(program, stem, number), profile=profile, limits=Limits()))
        for number in range(ROUNDS)
        for stem, converted in by_stem.items()
        for conversion in converted
        for program in (conversion.program, *conversion.probes)
    ]
    with all_cold():
        cold, _ = run_batch([request for _, request in requests])
    warm, wall_s = run_batch([request for _, request in requests])
    missing = [r.language for r in warm if r.verdict.value == "toolchain_missing"]
    if missing:
        raise Skip(f"no toolchain for {', '.join(sorted(set(missing)))} here (install with `make setup`)")
    of = [stem for stem, _ in requests]
    return figures(stems, of, warm, wall_s) | cold_figures(stems, of, cold, warm)


def mean_cpu_s(results: list[RunResult], phase: str) -> float:
    return round(sum(cpu_s(r, phase) for r in results) / len(results), 4)


def per_stem(stems: tuple[str, ...], of: list[str], results: list[RunResult]) -> dict[str, list[RunResult]]:
    return {stem: [r for name, r in zip(of, results, strict=True) if name == stem] for stem in stems}


def warm_start_cpu_s(mine: list[RunResult]) -> float:
    """A runner's one-off cost of a warm compiler: each worker's first compile (the costliest ones)
    above the steady mean of the others."""
    costs = sorted((cpu_s(r, "compile") for r in mine), reverse=True)
    firsts, steady = costs[:CORES], costs[CORES:] or [0.0]
    return round(max(0.0, sum(firsts) / len(firsts) - sum(steady) / len(steady)), 4)


def figures(
    stems: tuple[str, ...], of: list[str], results: list[RunResult], wall_s: float
) -> dict[str, float]:
    found: dict[str, float] = {f"cruxeval_x_{stem}_{phase}_cpu_s": 0.0 for stem in STEMS for phase in PHASES}
    found |= {f"cruxeval_x_{stem}_warm_start_cpu_s": 0.0 for stem in WARM_STEMS}
    starts_s = 0.0
    for stem, mine in per_stem(stems, of, results).items():
        if stem in WARM_STEMS:
            start_s = found[f"cruxeval_x_{stem}_warm_start_cpu_s"] = warm_start_cpu_s(mine)
            steady = sorted(mine, key=lambda r: cpu_s(r, "compile"))[: max(1, len(mine) - CORES)]
            found[f"cruxeval_x_{stem}_compile_cpu_s"] = mean_cpu_s(steady, "compile")
            starts_s += CORES * start_s
        else:
            found[f"cruxeval_x_{stem}_compile_cpu_s"] = mean_cpu_s(mine, "compile")
        found[f"cruxeval_x_{stem}_run_cpu_s"] = mean_cpu_s(mine, "run")
    found["cruxeval_x_projected_audit_min"] = projected_min(stems, found, "compile", starts_s)
    batch_cpu_s = sum(cpu_s(r, "compile") + cpu_s(r, "run") for r in results)
    found["cruxeval_x_batch_wall_vs_ideal"] = round(wall_s / (batch_cpu_s / CORES), 3)
    return found


def cold_figures(
    stems: tuple[str, ...], of: list[str], cold: list[RunResult], warm: list[RunResult]
) -> dict[str, float]:
    found = {f"cruxeval_x_{stem}_compile_cold_cpu_s": 0.0 for stem in WARM_STEMS}
    at_cold = {f"cruxeval_x_{stem}_{phase}_cpu_s": 0.0 for stem in STEMS for phase in PHASES}
    for stem, mine in per_stem(stems, of, cold).items():
        at_cold[f"cruxeval_x_{stem}_compile_cpu_s"] = mean_cpu_s(mine, "compile")
        at_cold[f"cruxeval_x_{stem}_run_cpu_s"] = mean_cpu_s(mine, "run")
        if stem in WARM_STEMS:
            found[f"cruxeval_x_{stem}_compile_cold_cpu_s"] = at_cold[f"cruxeval_x_{stem}_compile_cpu_s"]
    found["cruxeval_x_projected_cold_audit_min"] = projected_min(stems, at_cold, "compile", 0.0)
    return found


def projected_min(stems: tuple[str, ...], found: dict[str, float], compile: str, starts_s: float) -> float:
    """The whole benchmark's programs' CPU over the cores, in minutes: each program with its mutant, the
    languages measured standing for all 19 at their mean, plus the warm compilers' starts."""
    per_program_s = [found[f"cruxeval_x_{stem}_{compile}_cpu_s"] + found[f"cruxeval_x_{stem}_run_cpu_s"]
                     for stem in stems]  # fmt: skip
    per_language = PROGRAMS_IN_BENCHMARK / LANGUAGES_IN_BENCHMARK
    whole_cpu_s = 2 * per_language * LANGUAGES_IN_BENCHMARK * sum(per_program_s) / len(per_program_s)
    return round((whole_cpu_s + starts_s) / CORES / 60, 2)


if __name__ == "__main__":
    print(run())
