"""ml: McEval programs in C, C++, C#, Java, Rust, Python and Julia, completed into runnable programs;
label: stdout.

The question is a complete program in `custom_features.language` (Java files are named after the public
class). One Java label was made under a zh_CN locale (a formatted date): a locale drift, not a bad label.
"""

from typing import Any

from pipeline.build.methods import build_refactored
from pipeline.build.plan import plan_upstream
from pipeline.records import LabelProtocol, Program, SourceItem
from pipeline.scoring.metrics import exact_match, fixed
from pipeline.scoring.surge_eval import exact_extracted
from pipeline.subsets.base import ConstructionMethod, SubsetSpec
from pipeline.subsets.programs import code_lines, complete_program, refactored_language


def row_features(source: SourceItem, program: Program, extra: dict[str, Any]) -> dict[str, object]:
    """SURGE's ml keys: the language, the program's lines, the upstream repository."""
    language = refactored_language(source, program)
    return {"language": language, "lines": code_lines(program), "repo": source.upstream_repo}


SPEC = SubsetSpec(
    name="ml",
    title="multi-language",
    category=1,
    category_key="custom_categoey",
    construction=ConstructionMethod.ITERATIVE_REFACTOR,
    release_size=150,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("language", "lines", "repo"),
    few_shot_examples=3,
    upstream_sources=("mceval",),
    to_program=complete_program,
    metric=fixed("exact_match", exact_match),
    score_prediction=exact_extracted,
    plan_items=plan_upstream,
    build_batch=build_refactored,
    row_features=row_features,
)
