"""bench/surge_release_scale.py: a release in SURGE's format regrown here (every subset but fl), which the
audit reads whole: the path the whole-release timing takes, at one row a subset."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, require_tool
from tests.surge_process import run_surge, surge_env

SCRIPT = REPO_ROOT / "bench" / "surge_release_scale.py"
SUBSETS = {"ml", "cl", "bg", "sc", "tc", "dr", "rl"}


@pytest.mark.slow
def test_one_row_a_subset_is_exported_in_surges_format_and_audits_whole(tmp_path: Path) -> None:
    require_tool(
        "git", "bwrap", "gcc", "g++", "mcs", "mono", "javac", "java", "rustc", "python3", "clang++-19"
    )
    out = tmp_path / "scaled"
    done = subprocess.run(
        [sys.executable, SCRIPT, out, "--n", "1"],
        capture_output=True,
        text=True,
        env=surge_env(),
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    dataset = out / "release" / "dataset"
    assert json.loads(done.stdout)["rows"] == dict.fromkeys(SUBSETS, 1)
    assert {path.stem for path in dataset.glob("*.json")} == SUBSETS
    audited = run_surge(["audit", str(dataset), "--store", str(tmp_path / "audit"), "--json"], tmp_path)
    summary = json.loads(audited.stdout)
    assert (summary["labels"], summary["reproduced"], summary["refused"]) == (7, 7, 0), summary["by_subset"]


def test_wrong_every_changes_every_nth_label_of_each_file_and_nothing_else(tmp_path: Path) -> None:
    from tests.bench.scripts import load_bench_script

    scale = load_bench_script("surge_release_scale")
    records = [{"question": f"q{index}", "gt": f"label {index}"} for index in range(7)]
    for name in ("sc", "dr"):
        (tmp_path / f"{name}.json").write_text(json.dumps(records))
    assert scale.make_wrong(tmp_path, 3) == 4  # records 2 and 5 of each file
    for name in ("sc", "dr"):
        changed = json.loads((tmp_path / f"{name}.json").read_text())
        assert [record["question"] for record in changed] == [record["question"] for record in records]
        wrong = [index for index, record in enumerate(changed) if record["gt"] != f"label {index}"]
        assert wrong == [2, 5] and changed[2]["gt"].startswith("label 2\n")
