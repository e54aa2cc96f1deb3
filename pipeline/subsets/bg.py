"""bg: DebugBench buggy programs run under /app;
label: 'Compilation Error: ' + stderr, or stdout then stderr.

How SURGE ran them (shared/notes/surge-ground-truth.md, "bg"): every file under /app with a fixed name per
language (the labels show `/app/test.cpp`, `/app/Main.java`): `python3 /app/test.py`;
`g++ -std=c++11 /app/test.cpp -o /app/test`; `javac /app/<Class>.java` then `java -cp /app <Class>`.
The labels' C++ diagnostics use ASCII quotes (LANG=C) and Python's tracebacks are 3.9's: the
`surge-bg` and `surge-repro` profiles model that environment.
"""

from typing import Any

from pipeline.build.methods import build_refactored
from pipeline.build.plan import plan_upstream
from pipeline.records import (
    ExecutionSetting,
    LabelProtocol,
    Language,
    Limits,
    PhaseLimits,
    Program,
    SourceItem,
)
from pipeline.scoring.metrics import fixed, jaccard_words
from pipeline.scoring.surge_eval import jaccard_extracted
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec
from pipeline.subsets.programs import origin, record_language, refactored_language
from sandboxes.languages.java import class_file_name
from sources.surge_release import ReleasedRecord

APP_FILES = {Language.PYTHON: "test.py", Language.CPP: "test.cpp", Language.C: "test.c"}
SETTINGS = {Language.CPP: ExecutionSetting(compiler="g++", standard="c++11")}
BUILD_LIMITS = Limits(run=PhaseLimits(cpu_s=30.0, wall_s=35.0))  # SURGE dropped bg cases past 30 s


def to_program(record: ReleasedRecord) -> ProgramPlan:
    language = record_language(record)
    if language is Language.JAVA:
        filename = class_file_name(record.question)
    elif language in APP_FILES:
        filename = APP_FILES[language]
    else:
        raise ValueError(f"bg has no /app protocol for {language.value}")
    program = Program.single(
        language,
        record.question,
        filename=filename,
        protocol=LabelProtocol.COMBINED_WITH_PREFIX,
        origin=origin(record),
    )
    return ProgramPlan(
        language=language.value, program=program, setting=SETTINGS.get(language, ExecutionSetting())
    )


def row_features(source: SourceItem, program: Program, extra: dict[str, Any]) -> dict[str, object]:
    """SURGE's bg keys: gt0 (the correct program's output), language, type (the bug's kinds)."""
    types = source.fields.get("bug_types") or []
    language = refactored_language(source, program)
    return {"language": language, "gt0": extra.get("oracle_output", ""), "type": types or "None"}


SPEC = SubsetSpec(
    name="bg",
    title="buggy code",
    category=6,
    category_key="custom_category",
    construction=ConstructionMethod.ITERATIVE_REFACTOR,
    release_size=150,
    protocol=LabelProtocol.COMBINED_WITH_PREFIX,
    feature_keys=("language", "gt0", "type"),
    few_shot_examples=4,
    upstream_sources=("debugbench",),
    to_program=to_program,
    metric=fixed("jaccard_words", jaccard_words),
    score_prediction=jaccard_extracted,
    plan_items=plan_upstream,
    build_batch=build_refactored,
    build_profile="surge-bg",  # Python 3.9's tracebacks and LANG=C diagnostics, as the labels show
    build_limits=BUILD_LIMITS,
    row_features=row_features,
    labels_failures=True,
)
