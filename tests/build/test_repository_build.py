"""rl: repositories (a folder, or a git URL at a commit) with run instructions and input files."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from pipeline.build import steps
from pipeline.build.records import BuildConfig
from pipeline.build.repository import SAMPLE_MANIFEST
from pipeline.dataset import read_rows
from pipeline.store import Store
from tests.conftest import require_tool


def _build(store: Store, config: BuildConfig, n: int) -> list:
    steps.plan_round(store, config, 0, n)
    steps.build_batch(store, config, 0)
    steps.write_dataset(store, config, n)
    return read_rows(store, {"rl"})


@pytest.mark.slow
def test_a_git_repository_at_a_commit_one_row_per_input_and_a_broken_instruction_kept_with_its_reason(
    tmp_path, require_bwrap
):
    require_tool("git")
    repo = tmp_path / "wordfreq"
    shutil.copytree(SAMPLE_MANIFEST.parent / "wordfreq", repo)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    (repo / "textstats.py").write_text("raise SystemExit('later commit')\n")  # must not be what runs
    subprocess.run([*git, "commit", "-qam", "v2"], check=True)
    manifest = tmp_path / "manifest.jsonl"
    task = {"name": "wf", "location": repo.as_uri(), "commit": commit, "language": "python", "task": "text"}
    lines = [
        {**task, "run_instruction": "python main.py {input}", "inputs": ["input/1.txt", "input/2.txt"]},
        {**task, "name": "broken", "run_instruction": "python nope.py", "inputs": ["input/1.txt"]},
    ]
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="rl", items=str(manifest), batch_size=3)
    rows = _build(store, config, 3)
    assert [row.gt.splitlines()[0] for row in rows] == ["15 words, 10 distinct", "12 words, 7 distinct"]
    assert all(row.upstream.commit == commit and row.custom_features["metric"] == "exact" for row in rows)
    assert "textstats.py:<start_file>import re" in rows[0].question
    assert rows[0].question.endswith("the lazy dog.\nThe dog sleeps; the fox runs.\n<endfile>")
    assert steps.summary(store, config)["drop_reasons"] == {"runtime_error": 1}


@pytest.mark.slow
def test_the_bundled_sample_repositories_build(tmp_path, require_bwrap):
    require_tool("g++")
    rows = _build(Store(tmp_path), BuildConfig(subset="rl", batch_size=4), 4)
    assert {row.custom_features["metric"] for row in rows} == {"exact", "edit_distance"}
    shapes = next(row for row in rows if row.upstream.key == "shapes:input/1.txt")
    assert shapes.gt == "rectangle 6\ntriangle 10\nunknown shape circle\ntotal 16"
