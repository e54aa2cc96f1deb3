"""fl: Lean 4 proofs of Lean-Workbook statements; label: the checker's JSON (errors, pass, complete).

The question is a whole Lean file (header `import Mathlib\\nimport Aesop ...`, Goedel-Prover's
environment: Lean v4.9.0, mathlib4 @ 2f65ba7). Positions in the label are 1-based lines over the whole
question and 0-based columns. Checked by the Lean backend; without a Lean toolchain the run reports the
toolchain missing and the audit counts the label `not_run`, naming the tool.
"""

from pipeline.records import LabelProtocol, Language, Program
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec
from pipeline.subsets.programs import origin
from sources.surge_release import ReleasedRecord


def to_program(record: ReleasedRecord) -> ProgramPlan:
    program = Program.single(Language.LEAN4, record.question, filename="Main.lean", origin=origin(record))
    return ProgramPlan(language="lean4", program=program)


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
    to_program=to_program,
)
