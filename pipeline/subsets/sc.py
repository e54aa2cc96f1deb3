"""sc: Python scripts for numerical methods run with a sampled command line; label: stdout.

The question is a ```code``` block and a ```command``` block; the script runs without a shell, with the
argv rebuilt from its own argparse parser (pipeline/subsets/scripts.py). `custom_features.time` is the
run time SURGE recorded, a float of seconds. Labels differ from a fresh run mostly in numpy's line
wrapping: compare with whitespace collapsed.
"""

from pipeline.build.manual import build_scripts
from pipeline.build.plan import plan_scripts
from pipeline.records import LabelProtocol, Language
from pipeline.scoring.metrics import script_rule
from pipeline.scoring.surge_eval import script_scored
from pipeline.subsets import scripts
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
    to_program=scripts.to_program,
    metric=script_rule,
    score_prediction=script_scored,
    language=Language.PYTHON,
    plan_items=plan_scripts,
    build_batch=build_scripts,
    template_folder="pipeline/templates/scripts/sc",
)
