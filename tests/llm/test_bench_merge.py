"""bench/llm_server.py adds its figures to bench/results.json by key: another bench's keys stay as they were.

Not marked ``llm``: it needs no server, so `make test` runs it."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from tests.bench.scripts import load_bench_script


def bench_module() -> ModuleType:
    return load_bench_script("llm_server")


def test_the_figures_are_merged_by_key_and_every_other_key_is_kept(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"audit_runs_per_s": 12.5, "llm_server_tokens_per_s": 1.0}))
    bench_module().merge({"llm_server_tokens_per_s": 31.6, "llm_server_predict_score": 0.0}, results)
    assert json.loads(results.read_text()) == {
        "audit_runs_per_s": 12.5,
        "llm_server_predict_score": 0.0,
        "llm_server_tokens_per_s": 31.6,
    }
    assert [path.name for path in tmp_path.iterdir()] == ["results.json"]  # no temporary file left
