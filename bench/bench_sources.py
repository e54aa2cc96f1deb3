"""Sources: pulling a McEval-sized source (~2,000 records) from a local clone, against plain json.loads.

Issue 5 asks that parsing a full McEval-sized source from a local clone takes under 5 s. The source is
synthesised by replicating the McEval sample lines (with fresh task ids) into a local git repository.

Figures:
  sources_records                      records in the synthesised source
  sources_pull_s                       clone + checkout at the pinned commit + read, through pull_source
  sources_parse_s                      reading the checkout into SourceItems only (no git)
  sources_pull_vs_goal_ratio           sources_pull_s / 5 s (below 1 meets the goal)
  sources_json_baseline_s              the same files of the checkout read and each line json.loads'd,
                                       nothing else (the least a reader of them must do)
  sources_parse_vs_json_ratio          sources_parse_s / sources_json_baseline_s: what validating the
                                       records and building SourceItems costs on top
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import git

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import size  # noqa: E402

from sources.git import pull_source  # noqa: E402
from sources.registry import get_source  # noqa: E402

GOAL_S = 5.0
RECORDS_PER_FILE = size(250, 5)  # x 8 sample languages = 2,000 records, McEval's size (2,007)
FIGURES = (
    "sources_records",
    "sources_pull_s",
    "sources_parse_s",
    "sources_pull_vs_goal_ratio",
    "sources_json_baseline_s",
    "sources_parse_vs_json_ratio",
)
from sources import SAMPLES  # noqa: E402  (bundled: the repository needs nothing beside it)


def json_lines_s(checkout: Path) -> tuple[float, int]:
    """(seconds, records) to read the checkout's data files and json.loads each line."""
    started = time.perf_counter()
    records = [json.loads(line) for path in sorted((checkout / "data").glob("*.jsonl"))
               for line in path.read_bytes().splitlines() if line.strip()]  # fmt: skip
    return time.perf_counter() - started, len(records)


def synthesise(folder: Path) -> tuple[str, list[bytes]]:
    """A McEval-shaped git repository of 2,000 records; returns its commit and all lines."""
    repo = git.Repo.init(folder)
    (folder / "data").mkdir()
    all_lines: list[bytes] = []
    for sample in sorted((SAMPLES / "mceval").glob("*.jsonl")):
        records = [json.loads(line) for line in sample.read_text().splitlines() if line.strip()]
        lines = []
        for index in range(RECORDS_PER_FILE):
            record = dict(records[index % len(records)], task_id=f"{sample.stem}/{index + 1}")
            lines.append(json.dumps(record, ensure_ascii=False).encode("utf-8"))
        (folder / "data" / sample.name).write_bytes(b"\n".join(lines) + b"\n")
        all_lines.extend(lines)
    repo.git.add("--all")
    bench = git.Actor("bench", "bench@example.invalid")  # a fresh machine may have no git identity
    repo.index.commit("synthetic McEval", author=bench, committer=bench)
    return repo.head.commit.hexsha, all_lines


def run() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        commit, lines = synthesise(root / "McEval")
        source = get_source("mceval", commit)

        started = time.perf_counter()
        outcome = pull_source(source, root / "cache", root / "McEval")
        pull_s = time.perf_counter() - started
        assert outcome.record.items == len(lines), (outcome.record.items, len(lines))

        started = time.perf_counter()
        parsed = list(source.read(root / "cache" / "mceval", commit))
        parse_s = time.perf_counter() - started

        json_s, records = json_lines_s(root / "cache" / "mceval")
        assert len(parsed) == records == len(lines), (len(parsed), records, len(lines))
    return {
        "sources_records": float(len(lines)),
        "sources_pull_s": pull_s,
        "sources_parse_s": parse_s,
        "sources_pull_vs_goal_ratio": pull_s / GOAL_S,
        "sources_json_baseline_s": json_s,
        "sources_parse_vs_json_ratio": parse_s / json_s,
    }


if __name__ == "__main__":
    for name, value in run().items():
        print(f"{name:<34} {value:10.4f}")
