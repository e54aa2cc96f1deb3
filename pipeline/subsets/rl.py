"""rl: Multi-file repositories run with their run instruction and input files; label: stdout.

How a record becomes a program: pipeline/subsets/repositories.py (both packings of the release, the
input file on stdin, the language from the files since upstream says "Python" for C++ TUOJ projects,
and the run instruction inferred for PlotNeuralNet records, which have none).
"""

from pipeline.build.methods import build_repositories
from pipeline.build.plan import repository_items
from pipeline.records import LabelProtocol
from pipeline.scoring.metrics import repository_rule
from pipeline.scoring.surge_eval import repository_scored
from pipeline.subsets import repositories
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
    to_program=repositories.to_program,
    metric=repository_rule,
    score_prediction=repository_scored,
    plan_items=repository_items,
    build_batch=build_repositories,
)
