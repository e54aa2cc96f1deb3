"""CRUXEval-X's cost per program, language by language, compile and run apart; and what the whole benchmark
would cost to audit on this machine. `run() -> dict` (bench/run_all.py).

The programs are the CRUXEval-X plug-in's own test records (examples/surge-cruxeval, upstream's format),
each run as `surge audit` runs it: its harness language (Java with -ea, C# with DEBUG, D with unittests,
Go's test binary), and its mutant beside it. The plug-in and its harness languages are registered in this
process as their entry points would register them. One bwrap batch, two workers, a cold compile cache.

Figures (CPU seconds are user + system, per program, the mean over the language's records and mutants):
  cruxeval_x_<stem>_compile_cpu_s   the compile phase (0 for an interpreted language)
  cruxeval_x_<stem>_run_cpu_s       the run phase
  cruxeval_x_projected_audit_min    the whole benchmark's programs' own CPU (13,459 programs, each run
                                    with its mutant, at these means: 708 programs a language) over 2 cores,
                                    in minutes: the ideal an audit is measured against
  cruxeval_x_batch_wall_vs_ideal    this batch's wall time against its programs' CPU over 2 cores
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "surge-cruxeval" / "src"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(PLUGIN))

from harness import TINY, Skip, require_tools  # noqa: E402

from pipeline.audit.convert import convert, load_dataset  # noqa: E402
from pipeline.audit.rows import Conversion  # noqa: E402
from pipeline.records import Limits, RunRequest, RunResult  # noqa: E402
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
    "cruxeval_x_projected_audit_min",
    "cruxeval_x_batch_wall_vs_ideal",
)


def register_plugin() -> None:
    """The subset and its harness languages, as the plug-in's entry points register them."""
    from surge_cruxeval.x.compiled import GO, D
    from surge_cruxeval.x.harness import CSHARP, JAVA
    from surge_cruxeval.x.subset import SPEC

    from pipeline.subsets import register_subset
    from sandboxes.languages import REGISTRY

    register_subset(SPEC)
    for spec in (JAVA, CSHARP, D, GO):
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


def run() -> dict[str, float]:
    require_tools("bwrap")
    register_plugin()
    from sandboxes.backends.bwrap import BwrapBackend

    stems = TINY_STEMS if TINY else STEMS
    by_stem = conversions(stems)
    profile = get_profile("default")
    requests: list[tuple[str, RunRequest]] = [
        (stem, RunRequest(program=program, profile=profile, limits=Limits()))
        for stem, converted in by_stem.items()
        for conversion in converted
        for program in (conversion.program, *conversion.probes)
    ]
    with (
        tempfile.TemporaryDirectory() as cache,
        BwrapBackend(cache_dir=Path(cache), workers=CORES) as backend,
    ):
        started = time.perf_counter()
        results = list(backend.run_batch([request for _, request in requests]))
        wall_s = time.perf_counter() - started
    missing = [r.language for r in results if r.verdict.value == "toolchain_missing"]
    if missing:
        raise Skip(f"no toolchain for {', '.join(sorted(set(missing)))} here (install with `make setup`)")
    return figures(stems, [stem for stem, _ in requests], results, wall_s)


def figures(
    stems: tuple[str, ...], of: list[str], results: list[RunResult], wall_s: float
) -> dict[str, float]:
    found: dict[str, float] = {f"cruxeval_x_{stem}_{phase}_cpu_s": 0.0 for stem in STEMS for phase in PHASES}
    per_program_s = []
    for stem in stems:
        mine = [result for name, result in zip(of, results, strict=True) if name == stem]
        for phase in PHASES:
            found[f"cruxeval_x_{stem}_{phase}_cpu_s"] = round(
                sum(cpu_s(r, phase) for r in mine) / len(mine), 4
            )
        per_program_s.append(
            found[f"cruxeval_x_{stem}_compile_cpu_s"] + found[f"cruxeval_x_{stem}_run_cpu_s"]
        )
    per_language = PROGRAMS_IN_BENCHMARK / LANGUAGES_IN_BENCHMARK
    # each program runs with its mutant; the languages measured stand for all 19 at their mean
    whole_cpu_s = 2 * per_language * LANGUAGES_IN_BENCHMARK * sum(per_program_s) / len(per_program_s)
    found["cruxeval_x_projected_audit_min"] = round(whole_cpu_s / CORES / 60, 2)
    batch_cpu_s = sum(cpu_s(r, "compile") + cpu_s(r, "run") for r in results)
    found["cruxeval_x_batch_wall_vs_ideal"] = round(wall_s / (batch_cpu_s / CORES), 3)
    return found


if __name__ == "__main__":
    print(run())
