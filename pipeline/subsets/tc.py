"""tc: Long-running algorithmic scripts (sorting, graphs, NP-hard search, Monte Carlo);
label: stdout, with CPU time recorded."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="tc",
    title="time-consuming",
    category=5,
    category_key="custom_category",
    construction=ConstructionMethod.MANUAL_IMPLEMENTATION,
    release_size=150,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("qid", "time", "fid"),
    few_shot_examples=3,
)
