"""A model's prediction scored exactly as SURGE's eval/main.py scores it, output extraction included.

Facts of upstream's behaviour (eval/main.py, sc.py, rl.py, fl.py at github.com/Imbernoulli/SURGE), written
here from their description, not copied:
- ml, cl: 1 when ``gt == extract_output(prediction)``: the label is NOT stripped, the extraction is.
- bg, dr: word Jaccard of ``gt`` and the extracted output (no extraction -> 0).
- sc, tc: by script name (metrics.script_metric) on the extracted output; numeric scores are
  1 - mean relative error clipped to [0, 1]; a sort's Spearman rho is clipped too and stays NaN when
  undefined (constant or single values), as np.clip leaves it; mc_* compares the text after the last colon.
- rl: the task eval/main.py derives (PlotNeuralNet, 24 game: SequenceMatcher ratio; sudoku: the better
  of the extracted output and the last printed grid; TUOJ: exact).
- fl: the raw prediction must be the JSON itself: main.py calls fl_eval on it without extraction.
- Anything that raises upstream (a None extraction, unparseable numbers or JSON) scores 0, as the
  try/except there and main.py's ``if not score: 0`` make it.
"""

from __future__ import annotations

import json
import math
import re
from difflib import SequenceMatcher
from typing import Any

from pipeline.scoring.metrics import (
    NUMERIC_SCRIPT_PREFIXES,
    jaccard_words,
    parse_numbers,
    spearman,
)

SUDOKU_SEPARATOR = "------- 0 -------"
SUDOKU_GRID_CHARS = 18 * 9 + 2  # upstream takes this many characters before the last separator
SUDOKU_REPO = "https://github.com/psychopurp/sudoku-player"


def extract_output(text: Any) -> str | None:
    """The answer in a model's reply: after the first 'Output:', bold markers dropped, then the first
    fenced block, else the first inline code, else the first paragraph; None when nothing is left."""
    if not isinstance(text, str):
        return None
    found = re.search(r"Output:\s*\n*(.*)", text.strip(), re.DOTALL)
    answer = found.group(1).strip() if found else text.strip()
    answer = re.sub(r"\*\*.*?\*\*\s*", "", answer)
    if block := re.search(r"```(?:\w+)?\n(.*?)\n```", answer, re.DOTALL):
        return block.group(1).strip()
    if inline := re.search(r"`([^`]+)`", answer):
        return inline.group(1).strip()
    first = answer.split("\n\n")[0].strip()
    if first.startswith("**"):
        first = first.replace("**", "").strip()
    return first or None


def extract_sudoku(text: str) -> str | None:
    """The last printed grid: the characters before the last separator line, through it (Python slice
    semantics kept: a separator near the start wraps the start index, as upstream's slice does)."""
    text = text.strip()
    last = text.rfind(SUDOKU_SEPARATOR)
    if last < 0:
        return None
    return text[last - SUDOKU_GRID_CHARS : last + len(SUDOKU_SEPARATOR)]


def numeric_score(output: str | None, gt: str) -> float:
    try:
        got, want = parse_numbers(output), parse_numbers(gt)  # type: ignore[arg-type]
        got = (got + [0.0] * len(want))[: len(want)]
        errors = [abs(o - g) / (abs(g) + 1e-10) for o, g in zip(got, want, strict=True)]
        max(errors)  # upstream computes it first: an empty list raises, scoring 0
        mean = sum(errors) / len(errors)
    except (ValueError, TypeError, AttributeError, ZeroDivisionError):
        return 0.0
    return mean if math.isnan(mean) else min(1.0, max(0.0, 1.0 - mean))


def sort_score(output: str | None, gt: str) -> float:
    try:
        got, want = parse_numbers(output), parse_numbers(gt)  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError):
        return 0.0
    if len(got) != len(want):
        return 0.0  # scipy raises on unequal lengths
    rho = spearman(got, want)
    return rho if math.isnan(rho) else min(1.0, max(0.0, rho))


def script_score(prediction: str, gt: str, fid: str) -> float:
    output = extract_output(prediction)
    if any(prefix in fid for prefix in NUMERIC_SCRIPT_PREFIXES):
        return numeric_score(output, gt)
    if "sort" in fid:
        return sort_score(output, gt)
    if fid.startswith("mc_"):
        if output is None:
            return 0.0  # upstream raises here (None.split) and stops; we score it 0
        return numeric_score(output.split(":")[-1].strip(), gt.split(":")[-1].strip())
    return float(output == gt)


def rl_task(features: dict[str, Any]) -> str | None:
    """The task eval/main.py assigns a repository record before scoring it."""
    if features.get("repo") == "PlotNeuralNet":
        return "plotneurnalnet"  # upstream's spelling
    if features.get("run_instruction") == "python 24_game.py":
        return "24_game"
    if features.get("repo") == SUDOKU_REPO:
        task = features.get("task")
        return task if isinstance(task, str) else None
    return "TUOJ,cow" if features.get("run_instruction") == "make" else "TUOJ,car"


def ratio(gt: str, output: str | None) -> float:
    if output is None:
        raise TypeError("no output")
    return SequenceMatcher(None, gt, output).ratio()


def rl_score(prediction: str, gt: str, features: dict[str, Any]) -> float:
    task = rl_task(features)
    try:
        output = extract_output(prediction)
        if task in ("24_game", "plotneurnalnet"):
            return ratio(gt, output)
        if task == "sudoku":
            grid = extract_sudoku(prediction)
            from_grid = extract_output(grid) if grid else ""
            return max(ratio(gt, output or ""), ratio(gt, from_grid))
        if task in ("TUOJ,cow", "TUOJ,car"):
            return float(gt == output)
    except (TypeError, AttributeError):
        return 0.0
    return 0.0  # an unknown task: upstream prints "error" and returns None


def lean_result(text: str) -> tuple[Any, list[tuple[Any, Any]]]:
    result = json.loads(text)
    errors = [(error["pos"]["line"], error["data"]) for error in result.get("errors", [])]
    return result.get("pass", False), errors


def fl_score(prediction: str, gt: str) -> float:
    try:
        pred_pass, pred_errors = lean_result(prediction)
        gt_pass, gt_errors = lean_result(gt)
    except (ValueError, TypeError, KeyError, AttributeError):
        return 0.0
    if pred_pass and gt_pass:
        return 1.0
    if pred_pass != gt_pass:
        return 0.0
    if not gt_errors:
        return 0.0 if pred_errors else 1.0
    try:
        {line for line, _ in pred_errors}  # upstream builds this set: an unhashable line raises, scoring 0
    except TypeError:
        return 0.0
    total = 0.0
    for line, message in gt_errors:
        same_line = [pred_message for pred_line, pred_message in pred_errors if pred_line == line]
        if same_line:  # the first predicted error on the line counts, as upstream's next(...) picks it
            total += word_jaccard(message, same_line[0])
    return total / len(gt_errors)


def word_jaccard(first: Any, second: Any) -> float:
    """fl.py's jaccard_similarity: 0 when either side is not text (its try/except)."""
    if not isinstance(first, str) or not isinstance(second, str):
        return 0.0
    return jaccard_words(second, first)


# Each subset spec's ``score_prediction`` is one of these: (gt, custom_features, prediction) -> score.


def exact_extracted(gt: str, features: dict[str, Any], prediction: str) -> float:
    """ml, cl: 1 when the label equals the extracted output (the label is not stripped)."""
    return float(gt == extract_output(prediction))


def jaccard_extracted(gt: str, features: dict[str, Any], prediction: str) -> float:
    """bg, dr: word Jaccard of the label and the extracted output; nothing extracted scores 0."""
    output = extract_output(prediction)
    return 0.0 if output is None else word_jaccard(gt, output)


def script_scored(gt: str, features: dict[str, Any], prediction: str) -> float:
    """sc, tc: by the script's name (``fid``)."""
    return script_score(prediction, gt, str(features.get("fid", "")))


def repository_scored(gt: str, features: dict[str, Any], prediction: str) -> float:
    return rl_score(prediction, gt, features)


def proof_check_scored(gt: str, features: dict[str, Any], prediction: str) -> float:
    return fl_score(prediction, gt)
