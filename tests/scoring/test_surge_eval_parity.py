"""Parity with SURGE's eval/ code on a fixed set of predictions.

Each expected figure is what upstream's eval/main.py (with sc.py, rl.py, fl.py at
github.com/Imbernoulli/SURGE) returns for that prediction, worked out by following its code step by step;
the comment on each case says the step that decides it. Our implementation is written separately
(pipeline/scoring/surge_eval.py); these figures are the facts it must reproduce.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.scoring.by_subset import score_prediction
from pipeline.scoring.surge_eval import extract_output, extract_sudoku
from sources import SAMPLES

SUDOKU = "https://github.com/psychopurp/sudoku-player"
FL_PASS = '{"errors": [], "pass": true, "complete": true}'
FL_FAIL = json.dumps(
    {
        "errors": [
            {"severity": "error", "pos": {"line": 3, "column": 0}, "data": "unknown identifier 'x'"},
            {"severity": "error", "pos": {"line": 5, "column": 2}, "data": "type mismatch"},
        ],
        "pass": False,
        "complete": False,
    }
)
FL_PRED_LINE_3 = json.dumps(
    {
        "errors": [
            {"severity": "error", "pos": {"line": 3, "column": 0}, "data": "unknown identifier y"},
            {"severity": "error", "pos": {"line": 3, "column": 9}, "data": "unknown identifier 'x'"},
        ],
        "pass": False,
        "complete": False,
    }
)

# a list as a line, then a line-3 error matching gt's exactly
FL_PRED_UNHASHABLE = json.dumps(
    {
        "errors": [
            {"pos": {"line": [3]}, "data": "x"},
            {"pos": {"line": 3}, "data": "unknown identifier 'x'"},
        ],
        "pass": False,
    }
)

# (subset, gt, custom_features, prediction, upstream's score, why)
CASES: list[tuple[str, str, dict[str, Any], str, float, str]] = [
    ("ml", "6", {}, "Thought: add.\nOutput:\n6", 1.0, "text after the first Output:"),
    ("ml", "6", {}, "Output: **6**", 0.0, "bold spans are deleted, nothing is left: None != gt"),
    ("ml", "1\n2", {}, "Output:\n1\n2", 1.0, "one paragraph is kept whole"),
    ("ml", "1\n2", {}, "Output:\n1\n\n2\n", 0.0, "only the first paragraph survives"),
    ("cl", "[0, 1]\n", {}, "Output:\n[0, 1]", 0.0, "the label is not stripped, the extraction is"),
    ("cl", "42", {}, "The answer is `42`.", 1.0, "no Output: -> whole text -> inline code"),
    ("ml", "hello", {}, "Output:\n```\nhello\n```\nmore", 1.0, "first fenced block"),
    ("ml", "x", {}, "Output: 1\nOutput: x", 0.0, "the FIRST Output: wins"),
    ("bg", "Compilation Error: x y", {}, "Output:\ncompilation error: X z", 0.6, "Jaccard 3/5, lower-cased"),
    ("dr", "", {}, "Output:\n", 0.0, "empty extraction is None: Jaccard raises -> 0, even for an empty gt"),
    ("dr", "a b", {}, "no output marker a", 0.2, "whole text: {no,output,marker,a} vs {a,b} = 1/5"),
    (
        "sc",
        "['1.0000e+00' '2.0000e+00']",
        {"fid": "heat_eq_x.py"},
        "Output: ['1.1000e+00' '2.0000e+00']",
        0.95,
        "numeric: errors 0.1 and 0 -> 1 - 0.05",
    ),
    ("sc", "[3.0, 4.0]", {"fid": "gd_x.py"}, "Output: 3.0", 0.5, "padded with 0: errors 0 and 1"),
    ("sc", "[1.0]", {"fid": "heat_eq_x.py"}, "I cannot", 0.0, "float('I cannot') raises -> 0"),
    ("tc", "[1, 2, 3]", {"fid": "bubble_sort.py"}, "Output: [3, 2, 1]", 0.0, "rho -1 clipped to 0"),
    ("tc", "[1, 2, 3]", {"fid": "bubble_sort.py"}, "Output: [1, 3, 2]", 0.5, "rho 1 - 6*2/(3*8)"),
    (
        "tc",
        "[5, 5]",
        {"fid": "merge_sort.py"},
        "Output: [5, 5]",
        math.nan,
        "constant input: rho NaN, clip keeps NaN",
    ),
    ("tc", "[1, 2]", {"fid": "merge_sort.py"}, "Output: [1, 2, 3]", 0.0, "unequal lengths: spearmanr raises"),
    (
        "tc",
        "Estimate: 3.14",
        {"fid": "mc_pi.py"},
        "Output: Estimate: 3.3",
        1 - 0.16 / (3.14 + 1e-10),
        "mc_: the number after the last colon",
    ),
    ("tc", "7.02", {"fid": "tsp.py"}, "Thought: short\n\nOutput: 7.02", 1.0, "exact after extraction"),
    ("tc", "7.02", {"fid": "tsp.py"}, "Output: 7.020", 0.0, "exact: no numeric tolerance for tsp"),
    ("rl", "A\nB", {"repo": "TUOJ", "run_instruction": "make"}, "Output:\nA\nB", 1.0, "TUOJ,cow: exact"),
    ("rl", "abcd", {"repo": "PlotNeuralNet"}, "Output: abce", 0.75, "SequenceMatcher 2*3/8"),
    (
        "rl",
        "abcd",
        {"repo": "x", "run_instruction": "python 24_game.py"},
        "no marker",
        2 / 13,
        "24_game: ratio of 'abcd' and the whole text, one shared 'a'",
    ),
    ("rl", "xyz", {"repo": SUDOKU, "task": "sudoku"}, "Output: xyz", 1.0, "sudoku: max(1.0, ratio with '')"),
    ("rl", "xyz", {"repo": SUDOKU, "task": "other"}, "Output: xyz", 0.0, "unknown task: None -> 0"),
    ("fl", FL_PASS, {}, FL_PASS, 1.0, "both pass"),
    (
        "fl",
        FL_PASS,
        {},
        f"Thought: ok\nOutput:\n```json\n{FL_PASS}\n```",
        0.0,
        "main.py passes the raw reply to fl_eval: json.loads fails",
    ),
    ("fl", FL_PASS, {}, '{"errors": [], "pass": true, "complete": true,}', 0.0, "trailing comma: not JSON"),
    ("fl", FL_FAIL, {}, FL_PASS, 0.0, "pass disagrees"),
    (
        "fl",
        FL_FAIL,
        {},
        FL_PRED_LINE_3,
        0.25,
        "line 3: the FIRST predicted error there, Jaccard 2/4; line 5 unmatched: (0.5 + 0) / 2",
    ),
    (
        "fl",
        FL_FAIL,
        {},
        FL_PRED_UNHASHABLE,
        0.0,
        "a line that is a list cannot go into upstream's set of predicted lines: raises -> 0",
    ),
    (
        "fl",
        '{"errors": [], "pass": false, "complete": false}',
        {},
        FL_PRED_LINE_3,
        0.0,
        "gt fails without errors: the prediction must have none",
    ),
]


@pytest.mark.parametrize(
    ("subset", "gt", "features", "prediction", "expected", "why"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_score_equals_surge_eval(
    subset: str, gt: str, features: dict[str, Any], prediction: str, expected: float, why: str
) -> None:
    got = score_prediction(subset, gt, features, prediction)
    if math.isnan(expected):
        assert math.isnan(got), why
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), why


def test_extraction_steps() -> None:
    assert extract_output("  **Output:** `7`  ") == "7"  # first Output: is inside the bold span
    assert extract_output("Output:\n\n\n  ```python\nprint(1)\n```") == "print(1)"
    assert extract_output("**Answer** 12\n\nnoise") == "12"
    assert extract_output("") is None and extract_output(None) is None
    # upstream keeps 18*9+2 characters before the last separator: two more than nine 17-character rows
    # and their newlines, so the slice starts two characters into what precedes the grid
    grid = "\n".join(["1 2 3 4 5 6 7 8 9"] * 9) + "\n------- 0 -------"
    assert extract_sudoku(f"noise\n{grid}\n") == "e\n" + grid
    assert extract_sudoku("no grid here") is None


def write_predictions(path: Path, subset: str, answers: list[str]) -> None:
    lines = [json.dumps({"subset": subset, "index": i, "prediction": a}) for i, a in enumerate(answers)]
    path.write_text("\n".join(lines) + "\n")


def test_a_wrong_label_moves_the_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released = SAMPLES / "surge-released" / "ml.json"
    records = json.loads(released.read_text())
    predictions = tmp_path / "predictions.jsonl"
    write_predictions(predictions, "ml", [f"Thought: ran it\nOutput:\n{r['gt']}" for r in records])
    reexecuted = tmp_path / "reexecuted"
    reexecuted.mkdir()
    records[1]["gt"] = records[1]["gt"] + "0"  # one label differs between the two label sets
    (reexecuted / "ml.json").write_text(json.dumps(records))
    code = main(
        ["score", str(predictions), "--dataset", str(released), "--dataset", str(reexecuted), "--json"]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    figures = summary["datasets"]
    assert figures[str(released)]["ml"] == {"items": 3, "mean": 1.0, "nan_items": 0, "missing": 0}
    assert figures[str(reexecuted)]["ml"]["mean"] == pytest.approx(2 / 3, abs=1e-6)
    assert summary["label_sets"]["ml"] == {"labels_differ": 1, "score_delta": pytest.approx(-1 / 3, abs=1e-6)}


def test_number_parsing_deletes_brackets_like_upstream() -> None:
    # sc.py deletes quotes and brackets (str.replace with ''), so quoted numbers with no space between
    # them run together and fail to parse (score 0), and '[[1.][2.]]' reads as the single number 1.2.
    gt_heat = "['1.0000e+00' '2.0000e+00']"
    assert (
        score_prediction("sc", gt_heat, {"fid": "heat_eq_x.py"}, "Output: ['1.0000e+00''2.0000e+00']") == 0.0
    )
    assert score_prediction("sc", "[1.2]", {"fid": "gd_a.py"}, "Output: [[1.][2.]]") == 1.0
