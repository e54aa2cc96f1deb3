"""An audit's wall time against its ideal: what the programs themselves cost, spread over the cores.

One `surge audit` command (a process of its own, Prefect's API started by it, as a user runs it) over a
release this module writes in SURGE's format: ``ml`` records in Python and C whose programs run from a few
milliseconds to a few seconds, a tenth of them with a wrong label (so the audit's later rounds run: repeats
under every profile), one printing a random number (the seed round). The ideal is the programs' own CPU
time, read from the store's ``runs`` table (each compile once, and each run times its repeats), divided by
the cores: what the machine would take if nothing but the programs cost anything and no core ever idled.

    audit_wall_vs_ideal            the command's wall time / the ideal (goal: at most 1.1)
    audit_ideal_s                  the programs' CPU seconds / cores
    audit_wall_s                   the command, from its start to its exit
    audit_programs_cpu_s           the programs' CPU seconds (compiles, runs x repeats)
and where the difference goes, in seconds of wall time, which add up to wall - ideal exactly:
    audit_startup_s                from the command's start to its first program's start (imports, loading
                                   and converting the release, planning, Prefect's first flow run)
    audit_idle_cores_s             between the first program's start and the last one's end, core-seconds
                                   no program held, over the cores: the tails of waves and rounds, batch
                                   starts, scoring between them
    audit_sandbox_s                the programs' wall time beyond their CPU time, over the cores: sandbox
                                   starts, waiting on I/O
    audit_finish_s                 from the last program's end to the command's exit (the last rows, the
                                   report, the summary)
and, read from the machine's own counters (/proc/stat, so run it on a quiet machine), whether a core was
really idle: "idle cores" counts only time no program's row holds (a row holds its compile's wall time
and its ``setup_wall_s``: a compiler's seed, a warm server's start and cold check), and the runners and
the command's own Python hold none, yet keep a core busy:
    audit_machine_cpu_s            CPU seconds the whole machine spent while the command ran
    audit_beyond_programs_cpu_s    audit_machine_cpu_s - audit_programs_cpu_s: what the command spent
                                   around its programs
    audit_unused_cores_s           cores x wall - audit_machine_cpu_s, over the cores: wall time in which
                                   a core did nothing at all

A run row keeps its first repeat's phases: its other repeats are counted at the first one's wall and CPU.

Any audit's store gives the same split (the whole release, CRUXEval-X at scale): run it into a fresh store,
time the command, and ask

    python bench/bench_audit_ideal.py --store STORE --wall-s SECONDS

The command's start and end are not in the store, so the end is taken as the last program's: start-up
then holds the finish too. The programs' wall beyond their CPU is also printed per backend (bwrap, docker):
a Docker engine's storage driver shows there (docs/docker.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import TINY, size  # noqa: E402

from pipeline.records import RunResult  # noqa: E402
from pipeline.store import Store  # noqa: E402
from sandboxes.jobs import COMPILE_CACHE_HIT  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SURGE = ROOT / ".venv" / "bin" / "surge"
PYTHON_LOOPS = size(64, 4)  # Python programs; their lengths fall off geometrically
C_PROGRAMS = size(24, 2)
# The longest Python program's CPU seconds, on any machine: its loop is sized from this machine's speed
# (``longest_loop``). A fixed loop made a 48-s ideal on one VM and a 13-s one on a faster, where the
# command's fixed costs (its start, its last rows) weigh four times as much against the programs.
LONGEST_PYTHON_S = 6.0
CALIBRATION_LOOP = 3_000_000
TINY_LONGEST_LOOP = 200_000
WRONG_EVERY = 10  # every tenth label is wrong: the later rounds run for it
FIGURES = (
    "audit_wall_vs_ideal",
    "audit_ideal_s",
    "audit_wall_s",
    "audit_programs_cpu_s",
    "audit_startup_s",
    "audit_idle_cores_s",
    "audit_sandbox_s",
    "audit_finish_s",
    "audit_machine_cpu_s",
    "audit_beyond_programs_cpu_s",
    "audit_unused_cores_s",
)


def loop_sum(n: int) -> int:
    """sum(i % 7 for i in range(n)), without the loop."""
    full, rest = divmod(n, 7)
    return full * 21 + rest * (rest - 1) // 2


def python_loop(n: int) -> str:
    """The mix's Python program: a loop of ``n`` steps, then its sum."""
    return f"s = 0\nfor i in range({n}):\n    s += i % 7\nprint(s)\n"


def python_record(n: int, wrong: bool) -> dict[str, object]:
    return ml_record("Python", python_loop(n), loop_sum(n) + int(wrong))


def c_record(n: int, wrong: bool) -> dict[str, object]:
    code = (
        "#include <stdio.h>\nint main(void) {\n    volatile long s = 0;\n"
        f'    for (long i = 0; i < {n}L; i++) s += i % 7;\n    printf("%ld\\n", s);\n    return 0;\n}}\n'
    )
    return ml_record("C", code, loop_sum(n) + int(wrong))


def ml_record(language: str, code: str, gt: object) -> dict[str, object]:
    features = {"language": language, "lines": code.count("\n"), "repo": "bench"}
    return {"custom_categoey": 1, "custom_features": features, "question": code, "gt": str(gt)}


def longest_loop() -> int:
    """The loop count that takes the sandbox's Python ``LONGEST_PYTHON_S`` of CPU on this machine: the
    mix's programs run the same loop (``python_loop``), timed here once outside any sandbox."""
    if TINY:
        return TINY_LONGEST_LOOP
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["/usr/bin/python3", "-c", python_loop(CALIBRATION_LOOP)], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(CALIBRATION_LOOP * LONGEST_PYTHON_S / max(cpu_s, 0.01))


def release(folder: Path) -> Path:
    """The mix, as SURGE's ``ml.json``: long and short programs, some labels wrong, one random."""
    records, longest = [], longest_loop()
    for i in range(PYTHON_LOOPS):
        records.append(python_record(max(1000 + i, int(longest * 0.8**i)), wrong=i % WRONG_EVERY == 3))
    for i in range(C_PROGRAMS):
        records.append(c_record(max(1000 + i, int(longest * 4 * 0.7**i)), wrong=i % WRONG_EVERY == 5))
    random_code = "import random\nprint(random.random())\n"
    records.append(ml_record("Python", random_code, "0.5"))
    folder.mkdir(parents=True)
    (folder / "ml.json").write_text(json.dumps(records, indent=4))
    return folder


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        dataset = release(folder / "release")
        store = folder / "store"
        env = {**os.environ, "SURGE_COMPILE_CACHE": str(folder / "compile-cache")}
        command = [str(SURGE), "audit", str(dataset), "--store", str(store), "--json"]
        busy_before, began = machine_busy_s(), time.time()
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
        ended, busy_after = time.time(), machine_busy_s()
        assert done.returncode == 0, done.stderr[-2000:]
        runs = list(Store(store).runs.records())
    cores = os.cpu_count() or 1
    figures = breakdown([program_span(run) for run in runs], began, ended, cores)
    return {**figures, **machine_split(figures, busy_after - busy_before, cores)}


def machine_busy_s() -> float:
    """CPU seconds the machine has been busy since boot: /proc/stat's first line, less idle and iowait."""
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # guest time is counted in user already


def machine_split(figures: dict[str, float], machine_cpu_s: float, cores: int) -> dict[str, float]:
    """The machine's CPU while the command ran, split into the programs' and the rest; and the cores'
    time that nothing used."""
    return {
        "audit_machine_cpu_s": machine_cpu_s,
        "audit_beyond_programs_cpu_s": machine_cpu_s - figures["audit_programs_cpu_s"],
        "audit_unused_cores_s": (cores * figures["audit_wall_s"] - machine_cpu_s) / cores,
    }


Span = tuple[float, float, float]  # a run row's (start, end, CPU seconds): ``program_span``


def breakdown(spans: list[Span], began: float, ended: float, cores: int) -> dict[str, float]:
    cpu_s = sum(cpu for _, _, cpu in spans)
    first, last = min(start for start, _, _ in spans), max(end for _, end, _ in spans)
    held_s = sum(end - start for start, end, _ in spans)
    ideal_s = cpu_s / cores
    return {
        "audit_wall_vs_ideal": (ended - began) / ideal_s,
        "audit_ideal_s": ideal_s,
        "audit_wall_s": ended - began,
        "audit_programs_cpu_s": cpu_s,
        "audit_startup_s": first - began,
        "audit_idle_cores_s": (cores * (last - first) - held_s) / cores,
        "audit_sandbox_s": beyond_cpu_s(spans, cores),
        "audit_finish_s": ended - last,
    }


def beyond_cpu_s(spans: list[Span], cores: int) -> float:
    """The programs' wall time beyond their CPU time, over the cores."""
    return sum(end - start - cpu for start, end, cpu in spans) / cores


def program_span(run: RunResult) -> Span:
    """(start, end, CPU seconds) of one run row: its compile (unless the compile cache answered it: that
    compile's time was spent, and counted, by the run that made it) and each repeat of its run."""
    compile_wall = compile_cpu = 0.0
    if run.compile is not None and not run.compile.detail.startswith(COMPILE_CACHE_HIT):
        # a seed's or warm server's start (setup_wall_s) held the core too, its CPU in the compile's
        compile_wall, compile_cpu = run.compile.held_s, run.compile.cpu_user_s + run.compile.cpu_sys_s
    run_wall = run_cpu = 0.0
    if run.run is not None:
        run_wall = run.run.wall_s * run.repeats
        run_cpu = (run.run.cpu_user_s + run.run.cpu_sys_s) * run.repeats
    start = run.provenance.started_at.timestamp()
    return start, start + compile_wall + run_wall, compile_cpu + run_cpu


def of_store(store: Path, wall_s: float, cores: int) -> dict[str, float]:
    """The split of an audit already run into a fresh ``store`` in ``wall_s``, ending as its last program
    ended, and each backend's programs' wall beyond their CPU, over the cores."""
    runs = list(Store(store).runs.records())
    if not runs:
        raise SystemExit(f"bench_audit_ideal: {store} holds no runs (fix: name the store the audit wrote)")
    spans = [program_span(run) for run in runs]
    last = max(end for _, end, _ in spans)
    figures = breakdown(spans, last - wall_s, last, cores)
    by_backend: dict[str, list[Span]] = {}
    for run, span in zip(runs, spans, strict=True):
        by_backend.setdefault(run.provenance.backend, []).append(span)
    for backend, group in sorted(by_backend.items()):
        figures[f"audit_sandbox_s_{backend}"] = beyond_cpu_s(group, cores)
    return figures


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="an audit's fresh store: its split, not the bench's audit")
    parser.add_argument("--wall-s", type=float, help="with --store: the audit command's wall time")
    args = parser.parse_args(argv)
    if args.store and args.wall_s is None:
        parser.error(
            "--store needs --wall-s, the audit command's wall time (time it: `time surge audit ...`)"
        )
    figures = of_store(args.store, args.wall_s, os.cpu_count() or 1) if args.store else run()
    for name, value in figures.items():
        print(f"{name:<28} {value:10.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
