"""`surge score` says what it scored: coverage (scored, missing, unmatched), missing items as 0 on request,
ambiguous predictions refused with their line, per-item scores written out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from sources import SAMPLES

ML = SAMPLES / "surge-released" / "ml.json"


def right_answer(index: int) -> str:
    return "Output:\n" + json.loads(ML.read_text())[index]["gt"]


def score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], *flags: str
) -> tuple[int, str, str]:
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(line + "\n" for line in lines))
    code = main(["score", str(predictions), "--dataset", str(ML), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def line(subset: object, index: object, prediction: object = "Output:\nx") -> str:
    return json.dumps({"subset": subset, "index": index, "prediction": prediction})


def test_one_prediction_of_three_reports_its_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = score(tmp_path, capsys, [line("ml", 0, right_answer(0)), line("ml", 9)], "--json")
    assert code == 0
    summary = json.loads(out)
    cover = summary["coverage"][str(ML)]
    assert (cover["records"], cover["scored"], cover["missing"], cover["unmatched"]) == (3, 1, 2, 1)
    assert cover["unmatched_examples"] == ["ml/9 (line 2)"]
    assert summary["datasets"][str(ML)]["ml"] == {"items": 1, "mean": 1.0, "nan_items": 0, "missing": 2}
    assert summary["items"][str(ML)] == [
        {"subset": "ml", "index": 0, "score": 1.0, "missing": False, "where": "line 1"}
    ]


def test_the_text_summary_shows_the_coverage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = score(tmp_path, capsys, [line("ml", 0, right_answer(0))])
    assert code == 0
    assert "1 of 3 records predicted, 2 missing" in out
    assert "ml: 1.0000 over 1 items (2 missing)" in out and "--missing-as-zero" in out


def test_missing_as_zero_counts_every_record_as_surges_eval_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "scores.jsonl"
    lines = [line("ml", 0, right_answer(0))]
    code, out, _ = score(tmp_path, capsys, lines, "--missing-as-zero", "--json", "--output", str(output))
    assert code == 0
    figures = json.loads(out)["datasets"][str(ML)]["ml"]
    assert figures["items"] == 3 and figures["mean"] == pytest.approx(1 / 3, abs=1e-6)
    written = [json.loads(row) for row in output.read_text().splitlines()]
    assert [(row["index"], row["score"], row["missing"]) for row in written] == [
        (0, 1.0, False),
        (1, 0.0, True),
        (2, 0.0, True),
    ]
    assert {row["dataset"] for row in written} == {str(ML)}


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (line("ml", 1.5), "index must be a whole number"),
        (line("ml", "1"), "index must be a whole number"),
        (line("ml", True), "index must be a whole number"),
        (line("ml", 1.0), "index must be a whole number"),
        (line("ml", -1), "index must be a whole number"),
        (line("zz", 1), "unknown subset 'zz'"),
        (line("ml", 1, None), "prediction must be text"),
        (line("ml", 1, {"pass": True}), "prediction must be text"),
        ('{"subset": "ml", "prediction": "x"}', "no index"),
        ("[1, 2]", "expected an object"),
        ("{not json", "not valid JSON"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_an_ambiguous_line_is_refused_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str, reason: str
) -> None:
    code, _, err = score(tmp_path, capsys, [line("ml", 0, right_answer(0)), "", bad])
    assert code == 2
    assert "line 3: " in err and reason in err
    assert len(err.strip().splitlines()) == 1


def test_a_duplicate_is_refused_with_both_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [line("ml", 0, right_answer(0)), line("ml", 1), line("ml", 0, "Output:\nwrong")]
    code, _, err = score(tmp_path, capsys, lines)
    assert code == 2
    assert "line 3: ml item 0 again (first at line 1)" in err


def test_a_json_list_names_the_element(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps([{"subset": "ml", "index": 0, "prediction": "x"}, {"subset": "ml"}]))
    assert main(["score", str(predictions), "--dataset", str(ML)]) == 2
    assert "element 2: no index, prediction" in capsys.readouterr().err


def test_bytes_that_are_not_utf8_name_their_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_bytes(line("ml", 0).encode() + b"\n" + b'{"subset": "\xff"}\n')
    assert main(["score", str(predictions), "--dataset", str(ML)]) == 2
    assert "line 2: not UTF-8 text" in capsys.readouterr().err


def test_a_deeply_nested_dataset_is_refused_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    (dataset / "ml.json").write_text("[" * 100_000)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(line("ml", 0) + "\n")
    assert main(["score", str(predictions), "--dataset", str(dataset)]) == 2
    assert "nested too deeply" in capsys.readouterr().err
