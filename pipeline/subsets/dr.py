"""dr: C++ snippets whose output differs across g++/clang++ x C++03/11/14/17 x -O0..-Os;
label: diagnostics then stdout.

`custom_features.key` (`clang++-C++11--O1`) is the compiler, standard and -O level. The labels name the
file `test.cpp:8:19`: it was compiled inside its folder under a relative name. The label is the compile
phase's output followed by the run's output (two phases, composed after the run); a crash leaves no shell
text such as `Segmentation fault`. clang labels show line gutters (clang 19: the `surge-dr` profile).
"""

from pipeline.build.dr import ONE_ROW_SHARE, ROWS_PER_PROGRAM, build_snippets
from pipeline.build.plan import plan_snippets
from pipeline.records import ExecutionSetting, LabelProtocol, Language, Program
from pipeline.scoring.metrics import fixed, jaccard_words
from pipeline.scoring.surge_eval import jaccard_extracted
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec
from pipeline.subsets.programs import origin
from sources.surge_release import ReleasedRecord


def to_program(record: ReleasedRecord) -> ProgramPlan:
    key = str(record.custom_features.get("key", ""))
    setting = ExecutionSetting.from_surge_key(key)  # ValueError names the expected shape
    program = Program.single(
        Language.CPP,
        record.question,
        filename="test.cpp",
        protocol=LabelProtocol.COMPILE_THEN_RUN,
        origin=origin(record),
    )
    return ProgramPlan(language="cpp", program=program, setting=setting)


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
    to_program=to_program,
    metric=fixed("jaccard_words", jaccard_words),
    score_prediction=jaccard_extracted,
    language=Language.CPP,
    plan_items=plan_snippets,
    build_batch=build_snippets,
    # the rows a snippet is expected to give (1.9): planning one snippet per row built a third too many
    rows_per_item=ROWS_PER_PROGRAM - ONE_ROW_SHARE * (ROWS_PER_PROGRAM - 1),
    build_profile="surge-dr",  # clang++ is clang 19: it prints the line gutters SURGE's labels show
    template_folder="pipeline/templates/snippets",
)
