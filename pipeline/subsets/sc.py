"""sc: Python scripts for numerical methods run with a sampled command line; label: stdout."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="sc",
    title="scientific computing",
    category=4,
    category_key="custom_category",
    construction=ConstructionMethod.MANUAL_IMPLEMENTATION,
    release_size=150,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("qid", "time", "fid"),
    few_shot_examples=3,
)
