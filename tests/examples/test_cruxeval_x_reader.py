"""CRUXEval-X's reader, check locator, mutants, errata writer and scorer (nothing runs here): its 19
language files read into records located ``<file>[index]``, the expected value of each language's check
found in the bundled programs, each mutant altered where it should be, and the corrected file written in
upstream's layout."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pipeline.audit.convert import convert
from pipeline.audit.rows import AuditClass, Conversion, Unrunnable
from pipeline.subsets import ProgramPlan, load_release
from pipeline.subsets.corrections import Erratum
from tests.examples.cruxeval_x_files import (
    BUNDLED_X,
    MISSING,
    PASSES,
    PASSES_EMPTY,
    PASSES_LIST,
    PROSE,
    SUBSET_X,
    WRONG,
    entries,
    records,
    write_file,
)

pytestmark = pytest.mark.usefixtures("cruxeval_x")

STEMS = sorted(path.stem for path in BUNDLED_X.glob("*.json"))
# What each language's check expects of f([1, 2, 3]) (the bundled record 3), as the check writes it
LIST_EXPECTED = {
    "cpp": "std::vector<long>({(long)4, (long)6})",
    "cs": "new List<long>(new long[]{(long)4L, (long)6L})",
    "d": "[4L, 6L]",
    "go": "[]int{4, 6}",
    "java": "new ArrayList<Long>(Arrays.asList((long)4l, (long)6l))",
    "jl": "[4, 6]",
    "js": "[4, 6]",
    "lua": "{4, 6}",
    "php": "array(4, 6)",
    "pl": "[4, 6]",
    "py": "[4, 6]",
    "r": "c(4, 6)",
    "rb": "[4, 6]",
    "rkt": "(list 4 6)",
    "rs": "vec![4, 6]",
    "scala": "List[Long](4l.toLong, 6l.toLong)",
    "sh": '"4 6"',
    "swift": "[4, 6]",
    "ts": "[4, 6]",
}


def test_the_bundled_files_are_the_nineteen_languages() -> None:
    assert sorted(LIST_EXPECTED) == STEMS


def test_a_file_reads_into_records_located_by_position_and_a_missing_translation_is_none() -> None:
    read, bad = load_release(BUNDLED_X / "java.json", {SUBSET_X})
    assert bad == []
    assert [r.index for r in read] == [0, 2, 3, 4, 5]  # position 1 has no code: no translation
    first = read[0]
    assert (first.subset, first.location, first.gt, first.language) == (
        SUBSET_X,
        "java.json[0]",
        "passed",
        "java",
    )
    assert first.custom_features["id"] == PASSES and first.custom_features["language"] == "java"
    assert MISSING not in {r.custom_features["id"] for r in read}


@pytest.mark.parametrize("stem", STEMS)
def test_each_languages_check_is_located_and_masked_in_the_question(stem: str) -> None:
    record = records(stem, [PASSES_LIST])[PASSES_LIST]
    expected, at = record.custom_features["expected"], record.custom_features["expected_at"]
    assert expected == LIST_EXPECTED[stem]
    assert record.question[at : at + 2] == "??"
    code = next(e["code"] for e in entries(stem) if e["id"] == PASSES_LIST)
    assert record.question.replace("??", expected, 1) == code


def test_malformed_objects_and_files_are_quarantined_with_location_and_reason(tmp_path: Path) -> None:
    folder = tmp_path / "x"
    good = {"id": 0, "code": entries("py")[0]["code"]}
    write_file(folder, "py", [good, {"code": "x"}, {"id": "3", "code": "x"}, {"id": 4, "code": 5}, [1]])
    write_file(folder, "cobol", [good])
    (folder / "rb.json").write_text('{"id": 0}', encoding="utf-8")
    read, bad = load_release(folder, {SUBSET_X})
    assert [r.location for r in read] == ["x/py.json[0]"]
    reasons = {q.location: q.reason for q in bad}
    assert reasons["x/py.json[1]"] == "no id"
    assert reasons["x/py.json[2]"] == "id is not an integer: '3'"
    assert reasons["x/py.json[3]"] == "code is not text: int"
    assert "x/py.json[4]" in reasons  # not an object
    assert reasons["x/cobol.json"].startswith("not a CRUXEval-X language file: 'cobol' is none of cpp, cs, d")
    assert reasons["x/rb.json"] == "expected a JSON list, got dict"


def test_a_json_file_named_after_no_subset_is_read_by_the_one_asked_for_subset_with_a_reader(
    tmp_path: Path,
) -> None:
    path = write_file(tmp_path, "py", entries("py"))
    read, _ = load_release(path, {SUBSET_X})
    assert {r.subset for r in read} == {SUBSET_X}
    unasked, bad = load_release(path)  # nothing asked for: SURGE's reader, which finds no `question`
    assert unasked == [] and bad


def test_a_mutant_alters_the_first_literal_of_the_expected_value() -> None:
    plans = {key: plan_of("java", key) for key in (PASSES, PASSES_LIST, PASSES_EMPTY)}
    assert (
        plans[PASSES].mutation
        == 'the expected value\'s first string literal `"ab-ab-ab"` became `"ab-ab-ab!"`'
    )
    assert "number literal `4l` became `5l`" in plans[PASSES_LIST].mutation
    empty = plans[PASSES_EMPTY]
    assert "became `new ArrayList<Long>(Arrays.asList((Long)null))`" in empty.mutation
    assert empty.mutant is not None and "Arrays.asList((Long)null)" in empty.mutant.files[0].content
    assert empty.program.language == "cruxeval-java" and empty.check is not None


def test_an_expected_value_nothing_alters_has_no_mutant_and_the_plan_says_why() -> None:
    from sandboxes.languages import REGISTRY

    if "cruxeval-d" not in REGISTRY:
        pytest.skip("needs the D harness language (the core D spec)")
    plan = plan_of("d", PASSES_EMPTY)
    assert plan.mutant is None and "`[]` has no string, number or boolean literal" in plan.mutation
    assert "takes its element type from the other side" in plan.mutation


@pytest.mark.parametrize("stem", ["py", "php", "go"])
def test_prose_where_code_should_be_is_not_a_program(stem: str) -> None:
    outcome = convert(records(stem, [PROSE])[PROSE])
    assert isinstance(outcome, Unrunnable), outcome
    assert outcome.audit_class is AuditClass.NOT_A_PROGRAM and "no " in outcome.reason


def test_a_language_with_no_sandbox_here_is_not_run_naming_it() -> None:
    from sandboxes.languages import REGISTRY

    if "swift" in REGISTRY:
        pytest.skip("a Swift sandbox is registered: its runs name the missing toolchain instead")
    outcome = convert(records("swift", [PASSES])[PASSES])
    assert isinstance(outcome, Unrunnable) and outcome.audit_class is AuditClass.NOT_RUN
    assert "'swift'" in outcome.reason


def erratum(index: int, status: str) -> Erratum:
    return Erratum(
        subset=SUBSET_X,
        index=index,
        item_id="i",
        location=f"py.json[{index}]",
        status=status,  # type: ignore[arg-type]
        audit_class="mismatch" if status == "flagged" else "reproduced_exact",
        reason="the check does not hold here",
        evidence="",
        released_label="passed",
        our_label="assertion_failed: AssertionError",
        environment="default (run r)",
        corrected=False,
    )


def test_the_corrected_file_is_upstreams_layout_with_a_note_on_each_flagged_program(tmp_path: Path) -> None:
    from surge_cruxeval.x.errata import write_corrected

    items = [{"id": 0, "code": "def f(): return 'ä'\n"}, {"id": 1}, {"id": 2, "code": "x"}]
    path = write_file(tmp_path, "py", items)
    assert write_corrected(path, {0: erratum(0, "kept")}) == path.read_text(encoding="utf-8")
    text = write_corrected(path, {0: erratum(0, "kept"), 2: erratum(2, "flagged")})
    written = json.loads(text)
    assert written[:2] == items[:2] and written[2]["code"] == "x"
    assert written[2]["audit"]["status"] == "flagged" and written[2]["audit"]["class"] == "mismatch"
    assert text == json.dumps(written, indent=4, ensure_ascii=False)  # upstream's layout: ä as it is


def test_a_predicted_expected_value_scores_by_its_text_outside_strings() -> None:
    from surge_cruxeval.x.scoring import score_prediction

    java = {"language": "java", "expected": 'Pair.with(2l, "A B")'}
    assert score_prediction("passed", java, '[ANSWER]Pair.with(2l,  "A B")[/ANSWER]') == 1.0
    assert score_prediction("passed", java, 'Pair.with(2l, "AB")') == 0.0
    python = {"language": "py", "expected": "{'a': 1, 'b': 2}"}
    assert score_prediction("passed", python, '{"b": 2, "a": 1}') == 1.0
    assert math.isnan(score_prediction("passed", {"language": "py", "expected": None}, "1"))


def plan_of(stem: str, key: int) -> ProgramPlan:
    converted = convert(records(stem, [key])[key])
    assert isinstance(converted, Conversion), converted
    return converted.plan


def test_a_wrong_expected_value_is_read_like_any_other() -> None:
    record = records("py", [WRONG])[WRONG]
    assert record.custom_features["expected"] == "'ab-ab'" and record.gt == "passed"
