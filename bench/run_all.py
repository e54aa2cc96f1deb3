"""`make bench`: run every bench/bench_*.py, print its figures, and write bench/results.json.

Each module exposes ``run() -> dict[str, float]``: named figures, each a ratio or a quantity with its
unit in the name, measured against a baseline taken in the same run (never a hard-coded number).

Each module runs in a process of its own: a bench that ran flows leaves Prefect's API server running until
its process ends, and two such servers left from earlier benches took ~3% of a core from every bench after
them (the orchestration bench measured 1.26 inside `make bench`, 1.17-1.22 alone).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def main(selected: list[str]) -> int:
    results: dict[str, float] = {}
    for path in sorted(BENCH_DIR.glob("bench_*.py")):
        if selected and path.stem.removeprefix("bench_") not in selected:
            continue
        started = time.perf_counter()
        print(f"== {path.stem}", flush=True)
        figures = run_in_own_process(path)
        for name, value in figures.items():
            print(f"   {name:<40} {value:12.4f}")
        print(f"   ({time.perf_counter() - started:.1f} s)")
        results.update(figures)
    out = BENCH_DIR / "results.json"
    merged = json.loads(out.read_text()) if out.exists() else {}
    merged.update(results)
    out.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out}")
    return 0


def run_in_own_process(path: Path) -> dict[str, float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as figures:
        subprocess.run([sys.executable, __file__, "--module", str(path), figures.name], check=True)
        return json.loads(Path(figures.name).read_text())


def run_module(path: Path, figures_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures_path.write_text(json.dumps(module.run()))
    sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--module"]:
        run_module(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(main(sys.argv[1:]))
