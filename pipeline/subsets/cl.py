"""cl: LeetCode solutions (and OJCode) in C++, Java, JavaScript and Python with a 1-5 difficulty;
label: stdout.
The release gives cl records category 1, like ml; SURGE's eval/main.py tells them apart by `difficulty`.
The reader (sources/surge_release.py) takes the subset from the file name, so a cl record without
`difficulty` stays cl. Several programs carry their answer in a comment (`# Output: 4`): answer leakage.
"""

from typing import Any

from pipeline.build.methods import build_refactored
from pipeline.build.plan import plan_upstream
from pipeline.records import LabelProtocol, Program, SourceItem
from pipeline.scoring.metrics import exact_match, fixed
from pipeline.scoring.surge_eval import exact_extracted
from pipeline.subsets.base import ConstructionMethod, SubsetSpec
from pipeline.subsets.programs import code_lines, complete_program, refactored_language

JUDGES = {"leetcode": "LeetCode", "ojcode": "OJCode"}  # the source's name -> the judge SURGE's repo names


def row_features(source: SourceItem, program: Program, extra: dict[str, Any]) -> dict[str, object]:
    """SURGE's cl keys; repo names the judge as SURGE does (the upstream repository is in the provenance)."""
    return {
        "language": refactored_language(source, program),
        "lines": code_lines(program),
        "repo": JUDGES.get(source.source, source.source),
        "difficulty": extra.get("difficulty"),  # as confirmed in review (the proposal stays in review.db)
        "keywords": list(source.fields.get("keywords") or []),
    }


SPEC = SubsetSpec(
    name="cl",
    title="competition-level",
    category=2,
    category_key="custom_categoey",
    construction=ConstructionMethod.ITERATIVE_REFACTOR,
    release_size=150,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("language", "lines", "repo", "difficulty", "keywords"),
    few_shot_examples=3,
    category_in_release=1,
    upstream_sources=("leetcode", "ojcode"),
    to_program=complete_program,
    metric=fixed("exact_match", exact_match),
    score_prediction=exact_extracted,
    plan_items=plan_upstream,
    build_batch=build_refactored,
    row_features=row_features,
)
