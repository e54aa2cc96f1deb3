"""The ``cruxeval-x`` subset, for the ``surge.subsets`` entry point: CRUXEval-X's programs, each of which
checks its own output, audited by running the check (and its mutant) in the program's language.

Not buildable here (upstream translated CRUXEval with models and kept what its harness passed).
"""

from __future__ import annotations

from pipeline.records import LabelProtocol
from pipeline.scoring.metrics import fixed
from pipeline.subsets.base import ConstructionMethod, SubsetSpec
from surge_cruxeval.x.errata import write_corrected
from surge_cruxeval.x.programs import to_program
from surge_cruxeval.x.prompts import FEW_SHOT_EXAMPLES
from surge_cruxeval.x.records import CATEGORY, SUBSET, read_records
from surge_cruxeval.x.scoring import check_passed, score_prediction

LANGUAGES = 19
SLOTS_PER_LANGUAGE = 800  # CRUXEval's 800 ids in every file; a translation upstream lacks is no record

SPEC = SubsetSpec(
    name=SUBSET,
    title="CRUXEval-X: CRUXEval in 19 languages, each program checking its own output",
    category=CATEGORY,
    category_key="custom_category",
    # models translated CRUXEval and the harness kept what passed: the nearest of the paper's four methods
    construction=ConstructionMethod.INFERENCE_VERIFICATION,
    release_size=LANGUAGES * SLOTS_PER_LANGUAGE,
    protocol=LabelProtocol.SELF_CHECK,
    feature_keys=("id", "language", "expected", "expected_at"),
    few_shot_examples=FEW_SHOT_EXAMPLES,
    to_program=to_program,
    metric=fixed("check_passed", check_passed),
    metric_is_equality=True,
    score_prediction=score_prediction,
    language=None,  # per record: the language of its file
    upstream_release=False,
    read_records=read_records,
    write_corrected=write_corrected,
)
