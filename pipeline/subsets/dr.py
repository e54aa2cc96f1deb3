"""dr: C++ snippets whose output differs across g++/clang++ x C++03/11/14/17 x -O0..-Os;
label: diagnostics then stdout."""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec

SPEC = SubsetSpec(
    name="dr",
    title="differential results",
    category=7,
    category_key="custom_category",
    construction=ConstructionMethod.MANUAL_IMPLEMENTATION,
    release_size=200,
    protocol=LabelProtocol.COMPILE_THEN_RUN,
    feature_keys=("dependencies", "key"),
    few_shot_examples=6,
)
