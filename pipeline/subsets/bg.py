"""bg: DebugBench buggy programs run under /app;
label: 'Compilation Error: ' + stderr, or stdout then stderr."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="bg",
    title="buggy code",
    category=6,
    category_key="custom_category",
    construction=ConstructionMethod.ITERATIVE_REFACTOR,
    release_size=150,
    protocol=LabelProtocol.COMBINED_WITH_PREFIX,
    feature_keys=("language", "gt0", "type"),
    few_shot_examples=4,
)
