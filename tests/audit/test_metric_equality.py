"""A subset's metric changes a label's class only where the subset declares it an equality
(``SubsetSpec.metric_is_equality``): SURGE's subsets score with similarities, whose 1 can hide a real
difference, so their labels are still compared as text."""

from __future__ import annotations

import pytest

from pipeline.audit.rows import AuditClass, Conversion
from pipeline.audit.verdicts import audit_row
from pipeline.records import EnvironmentProfile, Program, RunRequest
from pipeline.subsets import RELEASED, ProgramPlan, subset_spec
from sources.surge_release import ReleasedRecord
from tests.audit.fakes import result_for


def test_no_subset_of_surges_release_scores_by_an_equality() -> None:
    assert [name for name in RELEASED if subset_spec(name).metric_is_equality] == []


@pytest.mark.parametrize(
    ("subset", "features", "ours", "gt"),
    [
        ("bg", {}, "a b\n", "b a"),  # Jaccard of words: reordered words score 1
        ("sc", {"fid": "bubble_sort.py"}, "[1, 5, 9]\n", "[1, 2, 3]"),  # Spearman: another increasing list
    ],
)
def test_a_similarity_scoring_1_leaves_a_text_difference_a_mismatch(
    subset: str, features: dict[str, str], ours: str, gt: str
) -> None:
    record = ReleasedRecord(
        subset=subset, index=0, location=f"{subset}.json[0]", question="x", gt=gt, custom_features=features
    )
    plan = ProgramPlan(language="python", program=Program.single("python", "print(1)"))
    conversion, profile = Conversion(record=record, plan=plan), EnvironmentProfile(name="fake")
    request = RunRequest(program=conversion.program, profile=profile)
    row = audit_row(conversion, profile, result_for(request, ours))
    assert row.score == 1.0 and row.audit_class is AuditClass.MISMATCH
    assert "equal under" not in row.reason + row.evidence
