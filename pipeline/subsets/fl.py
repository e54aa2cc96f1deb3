"""fl: Lean 4 proofs of Lean-Workbook statements; label: the checker's JSON (errors, pass, complete).

The question is a whole Lean file (header `import Mathlib\\nimport Aesop ...`, Goedel-Prover's
environment: Lean v4.9.0, mathlib4 @ 2f65ba7). Positions in the label are 1-based lines over the whole
question and 0-based columns. Checked by the Lean backend; without a Lean toolchain the run reports the
toolchain missing and the audit counts the label `not_run`, naming the tool.

Built by inference and verification (pipeline/build/prove.py) from Lean-Workbook statements (or the
bundled Goedel-Prover problems); the dataset takes passing and failing proofs in turn (``balanced``).
"""

import json
from typing import Any

from pipeline.build.methods import build_proofs
from pipeline.build.plan import plan_upstream
from pipeline.records import LabelProtocol, Language, Program
from pipeline.scoring.metrics import fixed, fl_score
from pipeline.scoring.surge_eval import proof_check_scored
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec
from pipeline.subsets.programs import origin
from sources.surge_release import ReleasedRecord


def to_program(record: ReleasedRecord) -> ProgramPlan:
    program = proof(record.question, origin(record))
    return ProgramPlan(language="lean4", program=program)


def proof(text: str, where: dict[str, str]) -> Program:
    """A Lean file whose label is the checker's answer (the Lean backend labels by this protocol)."""
    return Program.single(
        Language.LEAN4, text, filename="Main.lean", protocol=LabelProtocol.PROOF_CHECK, origin=where
    )


def proof_passes(row: Any) -> bool:
    return bool(json.loads(row.gt).get("pass"))


def balanced(rows: list[Any], n: int) -> list[Any]:
    """n rows in item order, passing and failing proofs alternately (pass first) while both last, then
    the rest of whichever remains: as balanced as the prover's proofs allow."""
    passing = [row for row in rows if proof_passes(row)]
    failing = [row for row in rows if not proof_passes(row)]
    chosen: list[Any] = []
    while len(chosen) < n and (passing or failing):
        for side in (passing, failing):
            if side and len(chosen) < n:
                chosen.append(side.pop(0))
    return chosen


SPEC = SubsetSpec(
    name="fl",
    title="formal language",
    category=8,
    category_key="custom_category",
    construction=ConstructionMethod.INFERENCE_VERIFICATION,
    release_size=150,
    protocol=LabelProtocol.PROOF_CHECK,
    feature_keys=(),
    few_shot_examples=3,
    upstream_sources=("lean_workbook", "goedel_prover"),
    select_rows=balanced,
    to_program=to_program,
    metric=fixed("fl_score", fl_score),
    score_prediction=proof_check_scored,
    language=Language.LEAN4,
    extracts_answer=False,  # eval/main.py scores fl's raw reply: there is nothing to extract
    plan_items=plan_upstream,
    build_batch=build_proofs,
)
