"""`make test-llm`'s figures: SmolLM2-135M (llama-cpp-python's server, `make llm`) through `surge predict`
over SURGE's bundled release sample, scored by `surge score`; merged into bench/results.json by key.

Not a bench_*.py: `make bench` runs every one of those, and this one needs the server that only `make llm`
builds. It writes only its own keys (``KEYS``), so it merges with whatever else bench/results.json holds.

    .venv/bin/python bench/llm_server.py    # prints the figures; skips (exit 0) where there is no server

Figures (one request at a time, so a request's seconds are its own and not its queue's):
- llm_server_predict_score: mean score over the 24 sample records (SURGE's metric per subset, as `surge
  score --missing-as-zero` gives it), zero-shot prompts;
- llm_server_tokens_per_s: completion tokens over the seconds their requests took, prompt reading included;
- llm_server_s_per_request: mean seconds a request;
- llm_server_truncated_share: answers cut by max_tokens (SmolLM2 often runs on until the context is full);
- llm_server_wheel_build_s: how long `make llm` took to build the wheel, where it recorded it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.llm import LLMClient, LLMSettings  # noqa: E402
from pipeline.llm.budget import Budget  # noqa: E402
from pipeline.scoring.predict import PredictionLine, predict  # noqa: E402
from pipeline.scoring.predictions import (  # noqa: E402
    DatasetScore,
    read_dataset,
    read_predictions,
    score_records,
)
from tests.llm.local_server import MODEL, LocalModelServer, missing  # noqa: E402

SAMPLE = ROOT / "sources" / "samples" / "surge-released"
RESULTS = ROOT / "bench" / "results.json"
WORK = ROOT / ".surge" / "bench-llm"
# Enough for any sample record's answer; SmolLM2 that runs on would otherwise fill its context (~2000
# tokens, half a minute) on many of the 24.
MAX_TOKENS = 512
KEYS = (
    "llm_server_predict_score",
    "llm_server_tokens_per_s",
    "llm_server_s_per_request",
    "llm_server_truncated_share",
    "llm_server_wheel_build_s",
)


def run() -> dict[str, float]:
    records = read_dataset(SAMPLE)
    WORK.mkdir(parents=True, exist_ok=True)
    output = WORK / "predictions.jsonl"
    output.unlink(missing_ok=True)  # a fresh run: the figures are this run's requests
    with LocalModelServer(WORK / "server.log") as server:
        settings = LLMSettings(
            base_url=server.base_url, model=MODEL, max_tokens=MAX_TOKENS, concurrency=1, cache_dir=None
        )
        with LLMClient(settings) as client:
            totals = predict(client, records, "zero-shot", output, Budget())
    if totals.failure:
        raise SystemExit(f"llm bench: the server failed: {totals.failure}")
    lines = [PredictionLine.model_validate_json(line) for line in output.read_text().splitlines()]
    scored = score_records(records, read_predictions(output), missing_as_zero=True)
    seconds = sum(line.latency_s for line in lines)
    figures = {
        "llm_server_predict_score": round(mean_score(scored), 4),
        "llm_server_tokens_per_s": round(sum(line.completion_tokens for line in lines) / seconds, 2),
        "llm_server_s_per_request": round(seconds / len(lines), 3),
        "llm_server_truncated_share": round(
            sum(line.finish_reason == "length" for line in lines) / len(lines), 4
        ),
    }
    if (built := wheel_build_seconds()) is not None:
        figures["llm_server_wheel_build_s"] = built
    return figures


def mean_score(scored: DatasetScore) -> float:
    """The mean over every record, each subset's mean as `surge score` gives it (a NaN item counts 0)."""
    subsets = scored.subsets.values()
    return sum(figures.mean * figures.items for figures in subsets) / sum(
        figures.items for figures in subsets
    )


def wheel_build_seconds() -> float | None:
    found = sorted((ROOT / ".surge" / "wheels").glob("llama-cpp-python-*/build_seconds"))
    return float(found[-1].read_text()) if found else None


def merge(figures: dict[str, float], path: Path = RESULTS) -> None:
    """Write these keys into ``path``, every other key kept as it was (written whole, then renamed)."""
    merged = json.loads(path.read_text()) if path.exists() else {}
    merged.update(figures)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".results.", suffix=".json")
    with os.fdopen(handle, "w") as out:
        out.write(json.dumps(merged, indent=2, sort_keys=True) + "\n")
    os.replace(temporary, path)


def main() -> int:
    if reason := missing():
        print(f"llm bench: skipped: {reason}")
        return 0
    figures = run()
    for name, value in figures.items():
        print(f"   {name:<40} {value:12.4f}")
    merge(figures)
    print(f"merged {len(figures)} figures into {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
