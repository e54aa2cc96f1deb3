"""rl: Multi-file repositories run with their run instruction and input files; label: stdout."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="rl",
    title="repository-level",
    category=3,
    category_key="custom_categoey",
    construction=ConstructionMethod.REPOSITORY_SAMPLING,
    release_size=60,
    protocol=LabelProtocol.STDOUT,
    feature_keys=("language", "repo", "difficulty", "task", "run_instruction"),
    few_shot_examples=3,
)
