"""Each SURGE metric against values computed by hand."""

from __future__ import annotations

import math

import pytest

from pipeline.scoring import by_subset, metrics
from sources.surge_release import ReleasedRecord


def test_exact_match_ignores_surrounding_whitespace_only() -> None:
    assert metrics.exact_match("4\n", "4") == 1.0
    assert metrics.exact_match("[0, 1]", "[0,1]") == 0.0


def test_jaccard_of_lowercased_word_sets() -> None:
    # {a, b, c} vs {b, c, d}: 2 shared of 4 -> 0.5; case is ignored, repeats count once.
    assert metrics.jaccard_words("a b c", "B C d d") == 0.5
    assert metrics.jaccard_words("", "  ") == 1.0
    assert metrics.jaccard_words("x", "") == 0.0


def test_relative_absolute_error_score() -> None:
    # |11 - 10| / 10 = 0.1 and |20 - 20| / 20 = 0 -> mean 0.05 -> score 0.95
    assert metrics.relative_absolute_error_score("[11, 20]", "[10, 20]") == pytest.approx(0.95)
    # numpy string array with scientific notation, re-wrapped: identical values -> 1
    gt = "['0.0000e+00' '1.3286e+01'\n '2.6571e+01']"
    assert metrics.relative_absolute_error_score("['0.0000e+00' '1.3286e+01' '2.6571e+01']", gt) == 1.0
    # missing values are padded with 0: [10] vs [10, 4] -> errors 0 and 1 -> 0.5
    assert metrics.relative_absolute_error_score("10", "10, 4") == pytest.approx(0.5)
    # far off is clipped to 0, and text scores 0
    assert metrics.relative_absolute_error_score("100", "1") == 0.0
    assert metrics.relative_absolute_error_score("n/a", "1") == 0.0


def test_spearman_by_hand() -> None:
    # ranks [1,2,3,4] vs [1,3,2,4]: d^2 = 0+1+1+0 = 2, rho = 1 - 6*2/(4*15) = 0.8
    assert metrics.spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)
    # ties share the mean rank: [1,1,2] -> ranks [1.5,1.5,3]
    assert metrics.spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)
    assert math.isnan(metrics.spearman([1, 1], [1, 2]))
    # score: reversed order is negative, clipped to 0; unequal lengths score 0
    assert metrics.spearman_score("[3, 2, 1]", "[1, 2, 3]") == 0.0
    assert metrics.spearman_score("[1, 2]", "[1, 2, 3]") == 0.0
    assert metrics.spearman_score("[1 5 9]", "[1, 5, 9]") == 1.0


def test_ratcliff_obershelp_and_edit_similarity() -> None:
    # "abcd" vs "abxd": matching blocks "ab" + "d" = 3 -> 2*3/8 = 0.75
    assert metrics.ratcliff_obershelp("abxd", "abcd") == 0.75
    # one substitution in 4 characters -> 1 - 1/4
    assert metrics.edit_similarity("abxd", "abcd") == 0.75
    assert metrics.edit_similarity("kitten", "sitting") == pytest.approx(1 - 3 / 7)


def _lean(passed: bool, *errors: tuple[int, str]) -> str:
    import json

    items = [
        {"severity": "error", "pos": {"line": line, "column": 0}, "endPos": None, "data": msg}
        for line, msg in errors
    ]
    return json.dumps({"errors": items, "pass": passed, "complete": passed})


def test_fl_score_by_hand() -> None:
    assert metrics.fl_score(_lean(True), _lean(True)) == 1.0
    assert metrics.fl_score(_lean(True), _lean(False, (3, "x"))) == 0.0
    # gt errors on lines 3 and 7; ours on 3 only, message {"simp","made","progress"} vs
    # {"simp","made","no","progress"}: 3/4 -> (0.75 + 0) / 2
    ours = _lean(False, (3, "simp made progress"))
    gt = _lean(False, (3, "simp made no progress"), (7, "linarith failed"))
    assert metrics.fl_score(ours, gt) == pytest.approx(0.375)
    assert metrics.fl_score("not json", gt) == 0.0


def _record(subset: str, **features: object) -> ReleasedRecord:
    return ReleasedRecord(subset=subset, index=0, location="x", question="", gt="", custom_features=features)


@pytest.mark.parametrize(
    ("record", "name"),
    [
        (_record("ml"), "exact_match"),
        (_record("bg"), "jaccard_words"),
        (_record("dr"), "jaccard_words"),
        (_record("sc", fid="heat_eq_x.py"), "relative_absolute_error"),
        (_record("tc", fid="quick_sort.py"), "spearman"),
        (_record("tc", fid="mc_pi.py"), "monte_carlo_rae"),
        (_record("tc", fid="binary_search.py"), "exact_match"),
        (_record("rl", repo="TUOJ", run_instruction="make"), "exact_match"),
        (_record("rl", repo="x", run_instruction="python 24_game.py"), "ratcliff_obershelp"),
        (_record("fl"), "fl_score"),
    ],
)
def test_metric_is_chosen_like_surge(record: ReleasedRecord, name: str) -> None:
    assert by_subset.metric_for(record)[0] == name


def test_monte_carlo_compares_the_number_after_the_colon() -> None:
    assert metrics.monte_carlo_score("Estimated pi: 3.0", "Estimated pi: 3.0") == 1.0
    assert metrics.monte_carlo_score("pi: 2.7", "pi: 3.0") == pytest.approx(0.9)
