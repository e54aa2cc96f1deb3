"""ml: McEval programs in C, C++, C#, Java, Rust, Python and Julia, completed into runnable programs;
label: stdout.

The question is a complete program in `custom_features.language` (Java files are named after the public
class). One Java label was made under a zh_CN locale (a formatted date): a locale drift, not a bad label.
"""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec
from pipeline.subsets.programs import complete_program

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
)
