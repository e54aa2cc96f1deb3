"""bg: DebugBench buggy programs run under /app;
label: 'Compilation Error: ' + stderr, or stdout then stderr.

How SURGE ran them (shared/notes/surge-ground-truth.md, "bg"): every file under /app with a fixed name per
language (the labels show `/app/test.cpp`, `/app/Main.java`): `python3 /app/test.py`;
`g++ -std=c++11 /app/test.cpp -o /app/test`; `javac /app/<Class>.java` then `java -cp /app <Class>`.
The labels' C++ diagnostics use ASCII quotes (LANG=C) and Python's tracebacks are 3.9's: the
`surge-bg` and `surge-repro` profiles model that environment.
"""

from pipeline.records import ExecutionSetting, LabelProtocol, Language, Program
from pipeline.subsets.base import ConstructionMethod, ProgramPlan, SubsetSpec
from pipeline.subsets.programs import origin, record_language
from sandboxes.languages.java import class_file_name
from sources.surge_release import ReleasedRecord

APP_FILES = {Language.PYTHON: "test.py", Language.CPP: "test.cpp", Language.C: "test.c"}
SETTINGS = {Language.CPP: ExecutionSetting(compiler="g++", standard="c++11")}


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
)
