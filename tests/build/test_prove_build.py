"""fl by inference and verification: a prover behind the chat-completions protocol proposes proofs, the
Lean checker decides, and the dataset balances passing and failing proofs.

The prover is a local stand-in server answering over the real protocol; the checker is the warm REPL pool
talking to tests/lean/fake_repl.py, which speaks leanprover-community/repl's JSON protocol and fails a
proof where its text carries `-- fake: error L C message` (a real Lean judges real proofs; none can be
installed here). The real path differs only in SURGE_LEAN_REPL_COMMAND / SURGE_LEAN_PROJECT_DIR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pipeline.build import steps
from pipeline.build.records import BuildConfig
from pipeline.cli import main
from pipeline.dataset import read_rows
from pipeline.llm.replay_server import Recorded, RecordedServer
from pipeline.store import Store

FAKE_REPL = Path(__file__).resolve().parents[1] / "lean" / "fake_repl.py"
ANSWER = "```lean4\n{statement}  -- fake: {directive}\n  nlinarith [sq_nonneg (a - b)]\n```"


@pytest.fixture
def stand_in_lean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("SURGE_LEAN_MAX_REPLS", "1")
    for name in ("SURGE_LLM_BASE_URL", "SURGE_LLM_MODEL", "SURGE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _statements(samples: Path) -> dict[str, str]:
    found = {}
    for path in sorted((samples / "goedel-prover").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            found[record["name"]] = record["formal_statement"]
    return found


def _prover(samples: Path) -> list[Recorded]:
    """Three proofs that fail, two that pass, one that weakens its theorem, and one statement unanswered."""
    statements = _statements(samples)
    directives = {
        "amc12a_2019_p21": "error 2 2 linarith failed",
        "amc12a_2015_p10": "error 1 2 nlinarith failed",
        "amc12a_2008_p8": "error 3 2 unsolved goals",
        "mathd_algebra_182": "warning 2 2 unused variable",
        "mathd_algebra_338": "warning 1 2 this tactic is never executed",
    }
    recorded = [
        Recorded(
            match=["Complete the following Lean 4 code", f"theorem {name} "],
            content=ANSWER.format(statement=statements[name], directive=directive),
        )
        for name, directive in directives.items()
    ]
    weakened = "```lean4\ntheorem x : True := by\n  trivial\n```"
    recorded.append(Recorded(match="theorem aime_1984_p5 ", content=weakened))
    return recorded


@pytest.mark.slow
def test_proofs_are_checked_labelled_and_balanced(
    stand_in_lean: None, samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="fl", batch_size=6)
    with RecordedServer(_prover(samples)) as server:
        monkeypatch.setenv("SURGE_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("SURGE_LLM_MODEL", "stand-in-prover")
        monkeypatch.setenv("SURGE_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
        steps.plan_round(store, config, 0, 6)
        counts = steps.build_batch(store, config, 0)
    assert counts == {"kept": 5, "dropped": 1, "kept_rows": 5, "skipped": 0}
    summary = steps.summary(store, config)
    assert summary["drop_reasons"] == {"statement changed": 1}  # aime_1984_p5: a different theorem

    assert steps.write_dataset(store, config, 4) == 4
    rows = read_rows(store, {"fl"})
    verdicts = [json.loads(row.gt)["pass"] for row in rows]
    assert sorted(verdicts) == [False, False, True, True]  # 2 of each, though 3 of the 5 proofs failed
    for row in rows:
        label = json.loads(row.gt)
        assert set(label) == {"errors", "pass", "complete"} and row.custom_features == {}
        assert row.question.startswith("import Mathlib") and row.upstream.source == "goedel_prover"
        assert not row.recorded_llm and row.run is not None
        if not label["pass"]:
            assert label["errors"][0]["severity"] == "error"


def test_a_statement_longer_than_the_provers_context_is_dropped_as_the_provers_failure(
    stand_in_lean: None, samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="fl", batch_size=6)
    # a context of 10 tokens refuses every prompt with HTTP 400, as a real server refuses a longer one
    with RecordedServer(_prover(samples), context_tokens=10) as server:
        monkeypatch.setenv("SURGE_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("SURGE_LLM_MODEL", "stand-in-prover")
        monkeypatch.setenv("SURGE_LLM_CACHE_DIR", str(tmp_path / "llm-cache"))
        steps.plan_round(store, config, 0, 6)
        counts = steps.build_batch(store, config, 0)
    assert counts["dropped"] == 6 and counts["kept"] == 0 and server.refused == 6
    assert steps.summary(store, config)["drop_reasons"] == {"prover failed": 6}


@pytest.mark.slow
def test_the_offline_default_proves_every_bundled_statement(stand_in_lean: None, tmp_path: Path) -> None:
    """The recorded prover (pipeline/build/recorded/fl.jsonl) answers all six bundled statements."""
    store = Store(tmp_path / "store")
    config = BuildConfig(subset="fl", batch_size=6)
    steps.plan_round(store, config, 0, 6)
    assert steps.build_batch(store, config, 0)["kept"] == 6
    steps.write_dataset(store, config, 6)
    rows = read_rows(store, {"fl"})
    assert len(rows) == 6 and all(row.recorded_llm for row in rows)


def test_without_lean_the_build_names_the_missing_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps(["lake-not-installed-here", "env", "repl"]))
    assert main(["build", "fl", "--n", "2", "--store", str(tmp_path / "store")]) == 1  # ours, with its fix
    out = capsys.readouterr().out
    assert "fl: not built: no Lean checker: `lake-not-installed-here` not found" in out
    assert not (tmp_path / "store" / "dataset").exists()  # nothing asked, nothing written


def test_the_selection_alternates_passing_and_failing_proofs_in_item_order() -> None:
    from types import SimpleNamespace

    from pipeline.subsets.fl import balanced

    def proof(name: str, passed: bool) -> SimpleNamespace:
        return SimpleNamespace(name=name, gt=json.dumps({"errors": [], "pass": passed, "complete": passed}))

    rows = [proof("f1", False), proof("f2", False), proof("f3", False), proof("p1", True), proof("p2", True)]
    assert [r.name for r in balanced(rows, 4)] == ["p1", "f1", "p2", "f2"]
    assert [r.name for r in balanced(rows[:3], 2)] == ["f1", "f2"]  # no passing proof: the failing ones
    assert [r.name for r in balanced(rows, 9)] == ["p1", "f1", "p2", "f2", "f3"]
