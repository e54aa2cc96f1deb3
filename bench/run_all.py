"""`make bench`: run every bench/bench_*.py, print its figures, and write bench/results.json.

    python bench/run_all.py [MODULE ...] [--tiny] [--out PATH] [--timeout-s S]

Each module exposes ``run() -> dict[str, float]`` and declares the names it returns in ``FIGURES``:
each a quantity with its unit in the name, or a ratio against a baseline taken in the same run that does
the same work as the measured side (bench/bare.py for bare loops). A ratio to a stated goal says
``_vs_goal_`` in its name; a comparison with a published figure is no ratio and says ``_est``.
MODULE is a name without ``bench_`` (``docker``); none: every module.
``--tiny`` runs each at a size of seconds (bench/harness.py), as the test suite does.

Each module runs in a process of its own: a bench that ran flows leaves Prefect's API server running until
its process ends, and two such servers left from earlier benches took ~3% of a core from every bench after
them (the orchestration bench measured 1.26 inside `make bench`, 1.17-1.22 alone). A module that fails
(an exception, a crash, its time out, a figure missing) costs only its own figures: its one-line error is
printed and kept in the results, its traceback and stderr in ``logs/<module>.log`` beside them, the other
modules run on, and the exit status is 1 at the end. A module that cannot run here (bench/harness.py's
``Skip``: a tool or an image absent) is reported as skipped with the reason, and is no failure.

The results file holds, per module, its status, wall time, figures and error or skip reason, and all
figures of the modules that succeeded in one flat table (``figures``). Modules not run this time keep
their entry from the file's last run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "results.json"
# A whole `make bench` must stay under 30 minutes on 2 cores; a module past this is stuck, not slow.
FULL_TIMEOUT_S = 1200
TINY_TIMEOUT_S = 480  # a tiny orchestration run took ~200 s under a load of 10 on 2 cores


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.tiny:
        os.environ["SURGE_BENCH_TINY"] = "1"  # the module processes inherit it (bench/harness.py)
    return run_modules(module_paths(args.modules), args.out, args.timeout_s, args.tiny)


def run_modules(paths: list[Path], out: Path, timeout_s: float, tiny: bool = False) -> int:
    """Run each module in its own process, print its report, write the results; 1 if any failed."""
    logs = out.parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    modules: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for path in paths:
        print(f"== {path.stem}", flush=True)
        report = run_in_own_process(path, logs / f"{path.stem}.log", timeout_s)
        modules[path.stem] = report
        print_report(report)
    write_results(out, modules, tiny)
    print(f"wrote {out} ({time.perf_counter() - started:.0f} s)")
    skipped = [f"{name} ({r['reason']})" for name, r in modules.items() if r["status"] == "skipped"]
    if skipped:
        print(f"skipped: {'; '.join(skipped)}")
    failed = [name for name, report in modules.items() if report["status"] == "failed"]
    if failed:
        print(f"FAILED: {', '.join(failed)} (tracebacks in {logs})")
        return 1
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="names without bench_ (default: every module)")
    parser.add_argument("--tiny", action="store_true", help="every module at a size of seconds")
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"results file (default {RESULTS})")
    parser.add_argument("--timeout-s", type=float, default=None, help="per module (default: by size)")
    args = parser.parse_args(argv)
    if args.timeout_s is None:
        args.timeout_s = TINY_TIMEOUT_S if args.tiny else FULL_TIMEOUT_S
    return args


def module_paths(selected: list[str]) -> list[Path]:
    paths = sorted(BENCH_DIR.glob("bench_*.py"))
    known = {path.stem.removeprefix("bench_") for path in paths}
    unknown = sorted(set(selected) - known)
    if unknown:
        raise SystemExit(f"run_all: no bench module {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return [path for path in paths if not selected or path.stem.removeprefix("bench_") in selected]


def run_in_own_process(path: Path, log: Path, timeout_s: float) -> dict[str, Any]:
    """Run one module in a child process; its report (status, wall_s, figures, error or reason). The
    child's stderr goes to the terminal and to ``log``."""
    started = time.perf_counter()
    with tempfile.NamedTemporaryFile(suffix=".json") as reported, log.open("wb") as log_file:
        child = subprocess.Popen(
            [sys.executable, __file__, "--module", str(path), reported.name],
            stderr=subprocess.PIPE,
            start_new_session=True,  # its servers and clusters go with it on a timeout
        )
        assert child.stderr is not None
        tee = threading.Thread(target=copy_stream, args=(child.stderr, log_file), daemon=True)
        tee.start()
        try:
            code = child.wait(timeout=timeout_s)
            error = "" if code == 0 else f"its process exited with status {code} before reporting"
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            error = f"timed out after {timeout_s:.0f} s (killed)"
        except KeyboardInterrupt:  # its own session does not hear the terminal's Ctrl-C: pass it on
            os.killpg(child.pid, signal.SIGKILL)
            raise
        tee.join(timeout=10)
        text = Path(reported.name).read_text()
        report: dict[str, Any] = json.loads(text) if text.strip() else {"status": "failed", "error": error}
        if report["status"] == "failed":
            report.setdefault("error", error)
            log_file.write(f"\n{report.pop('traceback', '')}\nerror: {report['error']}\n".encode())
            report["log"] = str(log)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    report.setdefault("figures", {})
    return report


def copy_stream(source: IO[bytes], log_file: IO[bytes]) -> None:
    """Everything the child writes to stderr, to the terminal and the log (progress lines included)."""
    while chunk := source.read1(65536):  # type: ignore[attr-defined]
        sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
        log_file.write(chunk)


def print_report(report: dict[str, Any]) -> None:
    for name, value in report["figures"].items():
        print(f"   {name:<48} {value:14.4f}")
    if report["status"] == "failed":
        print(f"   FAILED: {report['error']} (traceback: {report['log']})")
    elif report["status"] == "skipped":
        print(f"   skipped: {report['reason']}")
    print(f"   ({report['wall_s']:.1f} s)", flush=True)


def write_results(out: Path, modules: dict[str, dict[str, Any]], tiny: bool) -> None:
    """This run's modules over the file's earlier entries; the flat figures of every module that ran."""
    earlier: dict[str, Any] = {}
    if out.exists():
        try:
            earlier = json.loads(out.read_text()).get("modules", {})
        except (ValueError, AttributeError):  # an older layout (a flat table) or a broken file
            earlier = {}
    merged = {**earlier, **modules}
    figures = {
        name: value
        for report in merged.values()
        if report.get("status") == "ok"
        for name, value in report.get("figures", {}).items()
    }
    results = {
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "tiny": tiny,
        "figures": dict(sorted(figures.items())),
        "errors": {
            name: report["error"] for name, report in merged.items() if report.get("status") == "failed"
        },
        "modules": dict(sorted(merged.items())),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


# -- inside the module's own process -----------------------------------------------------------------


def run_module(path: Path, reported: Path) -> int:
    """Import and run the module; write its report (figures, or the error and traceback, or the skip)."""
    sys.path.insert(0, str(BENCH_DIR))
    from harness import Skip  # the same module object the bench modules import

    try:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        figures = module.run()
        check_figures(figures, getattr(module, "FIGURES", None))
        report: dict[str, Any] = {"status": "ok", "figures": figures}
    except Skip as missing:
        report = {"status": "skipped", "reason": str(missing)}
    except BaseException as error:  # noqa: BLE001  (a bench's failure of any kind is reported, then exit 1)
        line = f"{type(error).__name__}: {error}".splitlines()[0][:300]
        report = {"status": "failed", "error": line, "traceback": traceback.format_exc()}
    sys.stdout.flush()
    reported.write_text(json.dumps(report))
    return 1 if report["status"] == "failed" else 0


def check_figures(figures: object, declared: object) -> None:
    """The figures are the module's ``FIGURES``, each a finite number (JSON holds no infinity)."""
    if not isinstance(declared, tuple) or not declared:
        raise TypeError("the module declares no FIGURES (a tuple of the names run() returns)")
    if not isinstance(figures, dict):
        raise TypeError(f"run() returned {type(figures).__name__}, not a dict of figures")
    missing, extra = sorted(set(declared) - set(figures)), sorted(set(figures) - set(declared))
    if missing or extra:
        raise ValueError(f"figures missing: {missing or 'none'}; not declared in FIGURES: {extra or 'none'}")
    bad = [n for n, v in figures.items() if isinstance(v, bool) or not isinstance(v, int | float)]
    bad += [n for n, v in figures.items() if n not in bad and not math.isfinite(v)]
    if bad:
        raise ValueError(
            f"figures that are no finite number: {', '.join(f'{n}={figures[n]!r}' for n in bad)}"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--module"]:
        sys.exit(run_module(Path(sys.argv[2]), Path(sys.argv[3])))
    sys.exit(main(sys.argv[1:]))
