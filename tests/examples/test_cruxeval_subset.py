"""The CRUXEval example's subset, registered in this process with ``register_subset``: its reader, program,
metric and prompts, and `surge audit` / `surge score` over its own JSONL (no other file of ours edited).
tests/examples/test_cruxeval_plugin.py does the same with the package installed, as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.scoring.by_subset import score_prediction
from pipeline.scoring.predict import messages_of
from pipeline.subsets import SubsetSpec, load_release
from tests.examples.cruxeval_files import ALTERED_LINE, BUNDLED, altered, bundled_lines, write_lines

pytestmark = pytest.mark.usefixtures("cruxeval")


def test_the_bundled_records_read_as_released_records_with_their_prompts() -> None:
    records, bad = load_release(BUNDLED)
    assert len(records) == 20 and bad == []
    first = records[0]
    assert (first.subset, first.index, first.location) == ("cruxeval", 0, "cruxeval.jsonl:1")
    assert first.gt == "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]"
    assert first.question.endswith("assert f([1, 1, 3, 1, 3, 1]) == ??\n[/PYTHON]")
    assert first.custom_features == {"id": "sample_0", "input": "[1, 1, 3, 1, 3, 1]"}
    assert [r.custom_features["id"] for r in records] == [f"sample_{i}" for i in range(20)]
    system, user = messages_of(first, "cot")
    assert "step by step" in system["content"] and "[THOUGHT]" in system["content"]
    assert user["content"] == first.question


def test_a_bad_line_is_quarantined_with_file_line_and_reason(tmp_path: Path) -> None:
    good = bundled_lines()[:2]
    lines = [
        good[0],
        "{not json",
        {"code": "def g(x):\n    return x", "input": "1", "output": "1", "id": "no_f"},
        {"code": "def f(x):\n    return x", "input": "1,,", "output": "1", "id": "bad_input"},
        {"code": "def f(x) return", "input": "1", "output": "1", "id": "not_python"},
        {"code": "def f(x):\n    return x", "input": "1", "id": "no_output"},
        good[1],
    ]
    records, bad = load_release(write_lines(tmp_path / "cruxeval.jsonl", lines))
    assert [r.custom_features["id"] for r in records] == ["sample_0", "sample_1"]
    reasons = {q.location: q.reason for q in bad}
    assert list(reasons) == [f"cruxeval.jsonl:{n}" for n in range(2, 7)]
    assert "malformed JSON" in reasons["cruxeval.jsonl:2"]
    assert reasons["cruxeval.jsonl:3"] == "code defines no function f"
    assert reasons["cruxeval.jsonl:4"].startswith("input is not the arguments of a call")
    assert reasons["cruxeval.jsonl:5"].startswith("code is not Python")
    assert reasons["cruxeval.jsonl:6"] == "missing fields: output"


def test_a_file_named_otherwise_is_read_by_the_subset_asked_for(tmp_path: Path) -> None:
    renamed = write_lines(tmp_path / "my-sample.jsonl", bundled_lines()[:3])
    records, bad = load_release(renamed, {"cruxeval"})
    assert len(records) == 3 and not bad
    _, unread = load_release(renamed)  # asked for nothing: SURGE's reader, which wants a JSON list
    assert unread[0].reason.startswith("malformed JSON: Extra data")


def test_the_program_prints_the_repr_of_f_of_the_input(cruxeval: SubsetSpec) -> None:
    record = load_release(BUNDLED)[0][1]
    text = cruxeval.to_program(record).program.files[0].content
    assert text.startswith("def f(a, b, c):\n") and text.endswith("\nprint(repr(f((1, ), (1, ), (1, 2))))\n")
    ran = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True, timeout=60)
    assert ran.stdout == record.gt + "\n"  # a bundled record, run here outside the sandbox


def test_a_question_that_is_not_the_readers_is_refused_with_the_reason(cruxeval: SubsetSpec) -> None:
    record = load_release(BUNDLED)[0][0]
    edited = record.model_copy(update={"question": "print('not a CRUXEval problem')"})
    with pytest.raises(ValueError, match="not \\[PYTHON\\] code ending in `assert f"):
        cruxeval.to_program(edited)


@pytest.mark.parametrize(
    ("answer", "gt", "score"),
    [
        ("{2: None, 1: None}", "{1: None, 2: None}", 1.0),  # equal values, other order
        ('"hbtofdeiequ"', "'hbtofdeiequ'", 1.0),  # other quotes
        ("(0, 'x')", "(0, 'xx')", 0.0),
        ("True", "False", 0.0),
        ("f('bcksrut', 'q')", "'bcksrutq'", 0.0),  # a call is no literal: never evaluated
        ("<object at 0x1>", "<object at 0x1>", 1.0),  # neither a literal: the same text
        ("<object at 0x1>", "'<object at 0x1>'", 0.0),
    ],
)
def test_the_metric_compares_literals_never_evaluating_them(answer: str, gt: str, score: float) -> None:
    reply = f"[ANSWER]\nassert f(x) == {answer}\n[/ANSWER]"
    assert score_prediction("cruxeval", gt, {}, reply) == score


def test_an_answer_that_would_run_code_is_not_run(tmp_path: Path) -> None:
    target = tmp_path / "written"
    reply = f"[ANSWER]assert f(1) == open({str(target)!r}, 'w').write('x')[/ANSWER]"
    assert score_prediction("cruxeval", "1", {}, reply) == 0.0
    assert not target.exists()


def test_a_chain_of_thought_reply_is_read_after_its_answer_tag() -> None:
    reply = (
        "[THOUGHT]\nf doubles it, so f(2) == 4 is what the call gives.\n[/THOUGHT]\n"
        "[ANSWER]\nassert f(2) == 4\n[/ANSWER]\nextra text == 5"
    )
    assert score_prediction("cruxeval", "4", {}, reply) == 1.0


@pytest.mark.slow
@pytest.mark.usefixtures("require_bwrap")
def test_the_audit_reproduces_the_bundled_labels_and_catches_an_altered_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    audit = ["--subset", "cruxeval", "--store", str(store), "--repeats", "1", "--json"]
    assert main(["audit", str(BUNDLED), *audit]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["classes"] == {"reproduced_exact": 20} and summary["refused"] == 0

    lines: list[object] = list(altered(bundled_lines()))
    lines.insert(ALTERED_LINE, "{not json")  # a bad line: refused with its place, the rest audited
    changed = write_lines(tmp_path / "altered" / "cruxeval.jsonl", lines)
    assert main(["audit", str(changed), *audit]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["classes"] == {"reproduced_exact": 19, "mismatch": 1}
    assert summary["runs_executed"] == 0  # the programs are the same: only the label changed
    assert summary["refusals"] == [
        {"location": f"cruxeval.jsonl:{ALTERED_LINE + 1}", "reason": summary["refusals"][0]["reason"]}
    ]
    assert "malformed JSON" in summary["refusals"][0]["reason"]


def test_surge_score_scores_predictions_with_the_subsets_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = load_release(BUNDLED)[0]
    answers = {0: records[0].gt, 1: "{2: None, 1: None}", 2: '"hbtofdeiequ"', 3: "'bcksrut'"}
    predictions = write_lines(
        tmp_path / "predictions.jsonl",
        [
            {"subset": "cruxeval", "index": i, "prediction": f"[ANSWER]\nassert f(...) == {a}\n[/ANSWER]"}
            for i, a in answers.items()
        ],
    )
    assert main(["score", str(predictions), "--dataset", str(BUNDLED), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["datasets"][str(BUNDLED)]["cruxeval"]["mean"] == 0.75
    assert [item["score"] for item in scored["items"][str(BUNDLED)]] == [1.0, 1.0, 1.0, 0.0]
