"""fl: Lean 4 proofs of Lean-Workbook statements; label: the checker's JSON (errors, pass, complete)."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="fl",
    title="formal language",
    category=8,
    category_key="custom_category",
    construction=ConstructionMethod.INFERENCE_VERIFICATION,
    release_size=150,
    protocol=LabelProtocol.STDOUT,
    feature_keys=(),
    few_shot_examples=3,
)
