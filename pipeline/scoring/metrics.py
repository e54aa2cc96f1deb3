"""Label-against-label similarity with each subset's SURGE metric: the audit compares a re-executed label
with the released one. Model predictions are scored by surge_eval.py, which adds SURGE's output extraction.

Each subset's score as SURGE's own evaluation defines it (github.com/Imbernoulli/SURGE, eval/).

Written from the definitions, not copied: scores are in [0, 1]; anything unparseable scores 0, as
upstream's try/except does. Which metric a record is scored with is its subset spec's to say
(``SubsetSpec.metric``, built from the rules below); pipeline/scoring/by_subset.py asks it, since the
specs import these rules and so nothing here may import the specs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Any

from sources.surge_release import ReleasedRecord

Metric = Callable[[str, str], float]
MetricRule = Callable[[ReleasedRecord], tuple[str, Metric]]

# ---------------------------------------------------------------------------------------------
# The basic measures
# ---------------------------------------------------------------------------------------------


def exact_match(output: str, gt: str) -> float:
    """ml, cl: upstream compares gt with the stripped prediction; we strip both (gt has no padding)."""
    return 1.0 if output.strip() == gt.strip() else 0.0


def jaccard_words(output: str, gt: str) -> float:
    """bg, dr (and fl messages): |A ∩ B| / |A ∪ B| of lower-cased whitespace-separated words."""
    words_out, words_gt = set(output.lower().split()), set(gt.lower().split())
    if not words_out and not words_gt:
        return 1.0
    return len(words_out & words_gt) / len(words_out | words_gt)


def ratcliff_obershelp(output: str, gt: str) -> float:
    """rl (24 game, sudoku, PlotNeuralNet): difflib's ratio, 2·matches / total length."""
    return SequenceMatcher(None, gt, output).ratio()


def edit_similarity(output: str, gt: str) -> float:
    """1 - Levenshtein distance / longer length (upstream defines the distance in eval/rl.py)."""
    if not output and not gt:
        return 1.0
    previous = list(range(len(gt) + 1))
    for i, char_out in enumerate(output, start=1):
        current = [i]
        for j, char_gt in enumerate(gt, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_out != char_gt)))
        previous = current
    return 1.0 - previous[-1] / max(len(output), len(gt))


_SCIENTIFIC = ("e+", "e-")


def parse_numbers(text: str) -> list[float]:
    """The numbers of a printed result: '3.5', '[1, 2]', numpy '[[1. 2.]]', "['1e+00' '2e+00']", 'a, b'."""
    text = text.replace("\n", " ").strip()
    if "," in text and any(s in text for s in _SCIENTIFIC):
        return [float(x) for x in text.split(",")]
    if any(s in text for s in _SCIENTIFIC):
        # brackets and quotes are deleted, not spaced, as upstream's str.replace does
        return [float(x) for x in re.sub(r"['\[\]]", "", text).split()]
    if "[[" in text and "]]" in text:
        return [float(x.rstrip(".")) for x in re.sub(r"[\[\]]", "", text).split()]
    if text.startswith("[") and text.endswith("]"):
        inner = text.strip("[]")  # every bracket at either end, as upstream's str.strip does
        parts = inner.split(",") if "," in inner else inner.split()
        return [float(x) for x in parts if x.strip()]
    if "," in text:
        return [float(x) for x in text.split(",")]
    return [float(text)]


def relative_absolute_error_score(output: str, gt: str) -> float:
    """Numeric output: 1 - mean |o - g| / (|g| + 1e-10), clipped to [0, 1]; output padded with 0s or cut."""
    try:
        got, want = parse_numbers(output), parse_numbers(gt)
    except ValueError:
        return 0.0
    if not want:
        return 0.0
    got = (got + [0.0] * len(want))[: len(want)]
    errors = [abs(o - g) / (abs(g) + 1e-10) for o, g in zip(got, want, strict=True)]
    return min(1.0, max(0.0, 1.0 - sum(errors) / len(errors)))


def _ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank (as scipy.stats.rankdata does)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rho: Pearson correlation of the ranks. NaN when undefined (constant or too short)."""
    if len(xs) != len(ys) or len(xs) < 2:
        return math.nan
    rx, ry = _ranks(xs), _ranks(ys)
    mean_x, mean_y = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mean_x) * (b - mean_y) for a, b in zip(rx, ry, strict=True))
    var_x = sum((a - mean_x) ** 2 for a in rx)
    var_y = sum((b - mean_y) ** 2 for b in ry)
    return cov / math.sqrt(var_x * var_y) if var_x and var_y else math.nan


def spearman_score(output: str, gt: str) -> float:
    """Orderings (sort scripts): rank correlation clipped to [0, 1]; unparseable or undefined -> 0."""
    try:
        rho = spearman(parse_numbers(output), parse_numbers(gt))
    except ValueError:
        return 0.0
    return 0.0 if math.isnan(rho) else min(1.0, max(0.0, rho))


def monte_carlo_score(output: str, gt: str) -> float:
    """mc_*.py print 'Estimate: 3.14': the number after the last colon, scored as numeric output."""
    return relative_absolute_error_score(output.split(":")[-1].strip(), gt.split(":")[-1].strip())


# ---------------------------------------------------------------------------------------------
# fl: the Lean check result
# ---------------------------------------------------------------------------------------------


def _lean_result(text: str) -> tuple[bool, list[tuple[int, str]]]:
    result = json.loads(text)
    errors = [(int(e["pos"]["line"]), str(e["data"])) for e in result.get("errors", [])]
    return bool(result.get("pass", False)), errors


def fl_score(output: str, gt: str) -> float:
    """Pass/fail must agree; when both fail, each gt error scores the word-Jaccard of the message our
    first error on the same line carries (0 if none), averaged over gt's errors."""
    try:
        out_pass, out_errors = _lean_result(output)
        gt_pass, gt_errors = _lean_result(gt)
    except (ValueError, KeyError, TypeError):
        return 0.0
    if out_pass != gt_pass:
        return 0.0
    if gt_pass:
        return 1.0
    if not gt_errors:
        return 1.0 if not out_errors else 0.0
    first_by_line: dict[int, str] = {}
    for line, message in out_errors:
        first_by_line.setdefault(line, message)
    total = sum(jaccard_words(first_by_line[line], msg) for line, msg in gt_errors if line in first_by_line)
    return total / len(gt_errors)


# ---------------------------------------------------------------------------------------------
# Which metric a record is scored with
# ---------------------------------------------------------------------------------------------

NUMERIC_SCRIPT_PREFIXES = ("gd_", "rk_", "qr_", "lu_", "power_method_", "heat_eq_", "euler_", "fft_")


def script_metric(fid: str) -> tuple[str, Metric]:
    """sc/tc by script name, as upstream's eval/sc.py: numeric, sorting, Monte Carlo, else exact."""
    if any(prefix in fid for prefix in NUMERIC_SCRIPT_PREFIXES):
        return "relative_absolute_error", relative_absolute_error_score
    if "sort" in fid:
        return "spearman", spearman_score
    if fid.startswith("mc_"):
        return "monte_carlo_rae", monte_carlo_score
    return "exact_match", exact_match  # positions, string matching, binary search, cycles, ...


def repository_metric(features: dict[str, Any]) -> tuple[str, Metric]:
    """rl by repository type, as upstream's eval/rl.py: TUOJ exact, the others Ratcliff-Obershelp."""
    repo = str(features.get("repo", ""))
    run_instruction = str(features.get("run_instruction") or "")
    if repo == "PlotNeuralNet" or run_instruction == "python 24_game.py" or "sudoku" in repo:
        return "ratcliff_obershelp", ratcliff_obershelp
    return "exact_match", exact_match


def fixed(name: str, metric: Metric) -> MetricRule:
    """The rule of a subset scored with one metric whatever the record (ml, cl: exact; bg, dr: Jaccard)."""

    def rule(record: ReleasedRecord) -> tuple[str, Metric]:
        return name, metric

    return rule


def script_rule(record: ReleasedRecord) -> tuple[str, Metric]:
    """sc, tc: by the script's name."""
    return script_metric(str(record.custom_features.get("fid", "")))


def repository_rule(record: ReleasedRecord) -> tuple[str, Metric]:
    """rl: by the repository."""
    return repository_metric(record.custom_features)
