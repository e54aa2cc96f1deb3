"""cl: LeetCode solutions (and OJCode) in C++, Java, JavaScript and Python with a 1-5 difficulty;
label: stdout.
The release gives cl records category 1, like ml; SURGE's eval/main.py tells them apart by `difficulty`.
The reader (sources/surge_release.py) takes the subset from the file name, so a cl record without
`difficulty` stays cl. Several programs carry their answer in a comment (`# Output: 4`): answer leakage.
"""

from pipeline.records import LabelProtocol
from pipeline.subsets.base import ConstructionMethod, SubsetSpec
from pipeline.subsets.programs import complete_program

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
)
