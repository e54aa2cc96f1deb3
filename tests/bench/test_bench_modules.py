"""Every bench module runs once at its tiny size (bench/harness.py), in a process of its own as `make bench`
runs it, and writes the figures it declares: a change that breaks a bench breaks the test suite, not the
next `make bench`. No figure is judged (speed is never asserted in a unit test): only that each declared
figure is there and is a number. A module needing Docker images gets them built here when they can be
(tests/docker/conftest.py); one needing an absent tool skips with the tool's name.

Then run_all itself: a module that fails costs only its own figures, its error is one line in the
output and the results, its traceback in its log, and the exit status is 1.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench.scripts import BENCH, load_bench_script
from tests.conftest import REPO_ROOT

MODULES = sorted(path.stem.removeprefix("bench_") for path in BENCH.glob("bench_*.py"))
IMAGE_BUILD_TIMEOUT_S = 2100  # tests/docker/conftest.py's build timeout, and the run after it
RUN_TIMEOUT_S = 600


def constant(module: str, name: str) -> tuple[str, ...]:
    """A module-level tuple of strings, read from the source: importing a bench module may start work."""
    tree = ast.parse((BENCH / f"bench_{module}.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple) and all(isinstance(v, str) for v in value), f"{name}: {value!r}"
            return value
    return ()


def timeout_for(module: str) -> pytest.MarkDecorator:
    return pytest.mark.timeout(IMAGE_BUILD_TIMEOUT_S if constant(module, "IMAGES") else RUN_TIMEOUT_S)


@pytest.mark.slow
@pytest.mark.parametrize("module", [pytest.param(m, marks=timeout_for(m)) for m in MODULES])
def test_bench_module_runs_tiny_and_writes_its_figures(module: str, tmp_path: Path) -> None:
    declared = constant(module, "FIGURES")
    assert declared, f"bench_{module}.py declares no FIGURES"
    images = constant(module, "IMAGES")
    if images:
        from tests.docker.conftest import ensure_images

        for suite in sorted({image.split(":")[1] for image in images}):
            ensure_images(suite, tuple(image for image in images if image.endswith(f":{suite}")))
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "run_all.py"), module, "--tiny", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=RUN_TIMEOUT_S,
    )
    report = json.loads(out.read_text())["modules"][f"bench_{module}"]
    if report["status"] == "skipped":
        pytest.skip(f"bench_{module}: {report['reason']}")
    log = tmp_path / "logs" / f"bench_{module}.log"
    detail = (
        f"{report.get('error')}\n{done.stdout[-3000:]}\n{log.read_text()[-3000:] if log.exists() else ''}"
    )
    assert done.returncode == 0 and report["status"] == "ok", detail
    figures = report["figures"]
    assert sorted(figures) == sorted(declared)
    bad = {name: value for name, value in figures.items() if not is_number(value)}
    assert not bad, f"figures that are not numbers: {bad}"


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# -- run_all's own contract, on modules written here ------------------------------------------------

GOOD = 'FIGURES = ("good_ms",)\n\ndef run():\n    return {"good_ms": 1.5}\n'
BROKEN = (  # the error `make bench` met: a bench calling an API whose signature changed
    'FIGURES = ("broken_ms",)\n\ndef run():\n'
    "    raise TypeError(\"missing 1 required positional argument: 'helper'\")\n"
)
UNDECLARED = 'FIGURES = ("declared_ms",)\n\ndef run():\n    return {"declared_ms": 1.0, "other_ms": 2.0}\n'
SKIPPING = (
    'from harness import Skip\nFIGURES = ("skip_ms",)\n\ndef run():\n    raise Skip("needs `frobnicate`")\n'
)


def run_all_module() -> ModuleType:
    return load_bench_script("run_all")


def test_a_failing_module_costs_only_its_own_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = {"bench_a_good": GOOD, "bench_b_broken": BROKEN, "bench_c_undeclared": UNDECLARED}
    sources["bench_d_skipping"] = SKIPPING
    paths = []
    for name, text in sources.items():
        (tmp_path / f"{name}.py").write_text(text)
        paths.append(tmp_path / f"{name}.py")
    out = tmp_path / "out" / "results.json"
    code = run_all_module().run_modules(paths, out, timeout_s=60)
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())
    assert code == 1
    assert results["figures"] == {"good_ms": 1.5}
    assert set(results["errors"]) == {"bench_b_broken", "bench_c_undeclared"}
    broken = results["modules"]["bench_b_broken"]
    assert broken["error"] == "TypeError: missing 1 required positional argument: 'helper'"
    assert f"FAILED: {broken['error']}" in printed
    log = Path(broken["log"]).read_text()
    assert "Traceback (most recent call last)" in log and 'bench_b_broken.py", line 4, in run' in log
    assert "other_ms" in results["errors"]["bench_c_undeclared"]
    assert results["modules"]["bench_d_skipping"]["status"] == "skipped"
    assert "frobnicate" in results["modules"]["bench_d_skipping"]["reason"]
