"""ml: McEval programs in C, C++, C#, Java, Rust, Python and Julia, completed into runnable programs;
label: stdout."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

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
)
