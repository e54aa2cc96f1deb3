"""tc: Long-running algorithmic scripts (sorting, graphs, NP-hard search, Monte Carlo);
label: stdout, with CPU time recorded.

Same shape as sc (pipeline/subsets/scripts.py rebuilds the argv from the script's parser).
`custom_features.time` is text, `"12.6223 seconds"`, or null: the audit derives the run's limits from it.
The `mc_*` scripts are unseeded Monte Carlo: their labels cannot be reproduced exactly.
"""

from pipeline.build.manual import build_timed_scripts
from pipeline.build.plan import plan_scripts
from pipeline.records import LabelProtocol, Language
from pipeline.scoring.metrics import script_rule
from pipeline.scoring.surge_eval import script_scored
from pipeline.subsets import scripts
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
    to_program=scripts.to_program,
    metric=script_rule,
    score_prediction=script_scored,
    language=Language.PYTHON,
    plan_items=plan_scripts,
    build_batch=build_timed_scripts,
    template_folder="pipeline/templates/scripts/tc",
    time_bins=True,
)
