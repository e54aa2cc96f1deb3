"""`make bench`: run every bench/bench_*.py, print its figures, and write bench/results.json.

Each module exposes ``run() -> dict[str, float]``: named figures, each a ratio or a quantity with its
unit in the name, measured against a baseline taken in the same run (never a hard-coded number).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def main(selected: list[str]) -> int:
    results: dict[str, float] = {}
    for path in sorted(BENCH_DIR.glob("bench_*.py")):
        if selected and path.stem.removeprefix("bench_") not in selected:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        started = time.perf_counter()
        print(f"== {path.stem}", flush=True)
        figures = module.run()
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
