"""Bad records are quarantined with file:line or file[index] and a reason; the rest still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import ConfigurationError
from pipeline.records import QuarantinedRecord, SourceItem
from sources.git import pull_source
from sources.registry import SOURCES, get_source
from sources.surge_release import load_release

POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"ab" * 32 + b"\nsize 123\n"


def split(loaded) -> tuple[list[SourceItem], dict[str, str]]:
    items = [x for x in loaded if isinstance(x, SourceItem)]
    bad = {x.location: x.reason for x in loaded if isinstance(x, QuarantinedRecord)}
    return items, bad


def test_mceval_bad_lines(tmp_path: Path, samples: Path) -> None:
    good = (samples / "mceval" / "Python.jsonl").read_bytes().splitlines()
    lines = [
        good[0],
        b'{"task_id": "Python/x", "prompt": ',  # cut short
        b'{"task_id": "Python/y", "canonical_solution": "pass"}',  # no prompt
        b'{"task_id": "Python/z", "prompt": "caf\xe9", "canonical_solution": ""}',  # Latin-1, not UTF-8
        b"[1, 2]",
        b'{"task_id": "Python/s", "prompt": "\\ud800", "canonical_solution": ""}',  # no UTF-8 form
        good[1],
    ]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "Python.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (tmp_path / "data" / "Rust.jsonl").write_bytes(POINTER)
    items, bad = split(list(get_source("mceval").read(tmp_path, "c0ffee")))
    assert [item.key for item in items] == ["Python/1", "Python/2"]
    assert sorted(bad) == [f"data/Python.jsonl:{line}" for line in (2, 3, 4, 5, 6)] + ["data/Rust.jsonl"]
    assert bad["data/Python.jsonl:2"].startswith("malformed JSON")
    assert bad["data/Python.jsonl:3"] == "missing fields: prompt"
    assert bad["data/Python.jsonl:4"].startswith("not UTF-8")
    assert bad["data/Python.jsonl:5"] == "expected a JSON object, got list"
    assert bad["data/Python.jsonl:6"].startswith("not Unicode text: a lone surrogate")
    assert "Git LFS pointer" in bad["data/Rust.jsonl"]  # never parsed as data


def test_debugbench_unknown_language_bad_file_and_missing_fields(tmp_path: Path, samples: Path) -> None:
    benchmark = tmp_path / "benchmark"
    benchmark.mkdir()
    records = json.loads((samples / "debugbench" / "python3_double.json").read_text())
    del records[1]["buggy_code"]
    records[2] = "not a record"
    (benchmark / "python3_double.json").write_text(json.dumps(records))
    (benchmark / "cobol_double.json").write_text(json.dumps(records[:1]))
    (benchmark / "java_triple.json").write_text('[{"slug": "x",')
    items, bad = split(list(get_source("debugbench").read(tmp_path, "c0ffee")))
    assert [item.upstream_locator for item in items] == ["0", "3", "4"]
    assert bad["benchmark/python3_double.json[1]"] == "missing fields: buggy_code"
    assert bad["benchmark/python3_double.json[2]"] == "expected a JSON object, got str"
    assert bad["benchmark/cobol_double.json"].startswith("unknown language in shard name")
    assert bad["benchmark/java_triple.json"].startswith("malformed JSON")


def test_surge_release_unknown_language_and_missing_label(tmp_path: Path, samples: Path) -> None:
    records = json.loads((samples / "surge-released" / "ml.json").read_text())
    records[0]["custom_features"]["language"] = "COBOL"
    del records[1]["gt"]
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "ml.json").write_text(json.dumps(records))
    (dataset / "cl.json").write_bytes(b"\xff\xfe not utf-8")
    good, bad = load_release(dataset)
    assert [r.index for r in good] == [2]
    reasons = {q.location: q.reason for q in bad}
    assert reasons["dataset/ml.json[0]"].startswith("unknown language 'COBOL'")
    assert reasons["dataset/ml.json[1]"] == "missing fields: gt"
    assert reasons["dataset/cl.json"].startswith("not UTF-8")


def test_leetcode_file_without_statement_or_code(tmp_path: Path) -> None:
    (tmp_path / "problems").mkdir()
    (tmp_path / "problems" / "7.empty.md").write_text("just a note\n")
    items, bad = split(list(get_source("leetcode").read(tmp_path, "c0ffee")))
    assert items == [] and bad == {"problems/7.empty.md": "no problem statement and no code fence"}


def test_quarantine_counts_reach_the_pull_record(upstream, samples: Path, tmp_path: Path) -> None:
    repo = upstream("McEval")
    c_lines = (samples / "mceval" / "C.jsonl").read_bytes() + b"{oops\n"
    pinned = repo.commit({"data/C.jsonl": c_lines})
    outcome = pull_source(get_source("mceval", pinned), tmp_path / "cache", repo.url)
    assert (outcome.record.items, outcome.record.quarantined) == (6, 1)
    assert outcome.quarantined[0].location == "data/C.jsonl:7" and outcome.quarantined[0].stage == "pull"


def test_unknown_source_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError) as error:
        get_source("mceva")
    assert all(name in error.value.hint for name in SOURCES)
