"""`surge pull --json` end to end: CLI -> Prefect flow -> gitpython -> adapter -> Parquet store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pipeline.store import Store
from sources.store import items_table, pulls_table
from tests.sources.conftest import sample_files

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_surge_pull_json(upstream, samples: Path, tmp_path: Path) -> None:
    repo = upstream("DebugBench")
    files = sample_files(samples, "debugbench", "benchmark", "*.json")
    pinned = repo.commit({**files, "benchmark/java_double.json": '[{"slug": "a"}]'})  # one record lacks code
    repo.commit({"benchmark/cpp_later.json": "[]"})  # after the pin: never read
    store, cache = tmp_path / "store", tmp_path / "cache"
    command = [sys.executable, "-m", "pipeline.cli", "pull", "debugbench", "--json"]
    command += ["--mirror", repo.url, "--commit", pinned, "--cache", str(cache), "--store", str(store)]
    environment = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300, env=environment)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)["sources"]["debugbench"]
    assert (result["commit"], result["items"], result["new_items"], result["quarantined"]) == (
        pinned,
        19,
        19,
        1,
    )
    assert items_table(Store(store)).count() == 19
    (record,) = list(pulls_table(Store(store)).records())
    assert (record.commit, record.url, record.items) == (pinned, repo.url, 19)
    assert result["quarantine"] == [
        {"location": "benchmark/java_double.json[0]", "reason": "missing fields: buggy_code, oracle_code"}
    ]
    assert len(list(Store(store).quarantine.records())) == 1
