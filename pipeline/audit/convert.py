"""SURGE's released JSON -> runnable programs, one small rule per subset.

Each rule returns a Conversion or raises ValueError with a reason; `convert` turns the error into a
Refusal, so one bad record never stops the audit. How each subset's labels were produced is in
shared/notes/surge-ground-truth.md; the comments below say which fact forced each choice.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pipeline.audit.rows import SUBSETS, Conversion, Refusal, ReleasedRecord
from pipeline.errors import InputError
from pipeline.records import ExecutionSetting, LabelProtocol, Language, Program, ProgramFile, parse_language

# custom_category (spelled custom_categoey in ml, cl and rl) -> subset. 1 covers ml and cl: cl records
# carry a `difficulty` feature (SURGE's eval/main.py re_errors makes the same split).
CATEGORY_SUBSETS = {1: "ml", 2: "cl", 3: "rl", 4: "sc", 5: "tc", 6: "bg", 7: "dr", 8: "fl"}


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def load_dataset(path: Path, subsets: set[str] | None = None) -> list[ReleasedRecord]:
    """Read one released subset file or the whole dataset/ folder (files named <subset>.json)."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not path.exists() or not files:
        raise InputError(
            f"no released SURGE data at {path}", hint="pass dataset/<subset>.json or the dataset/ folder"
        )
    records: list[ReleasedRecord] = []
    for file in files:
        if file.stem not in SUBSETS and path.is_dir():
            continue
        for record in load_file(file):
            if subsets is None or record.subset in subsets:
                records.append(record)
    return records


def load_file(file: Path) -> Iterator[ReleasedRecord]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(
            f"cannot read {file}: {error}", hint="is it one of SURGE's dataset/*.json?"
        ) from None
    if not isinstance(data, list):
        raise InputError(f"{file} holds a {type(data).__name__}, not a list of records")
    for index, raw in enumerate(data):
        if not isinstance(raw, dict) or not isinstance(raw.get("question"), str):
            yield malformed(file, index, raw)
            continue
        yield ReleasedRecord(
            subset=subset_of(raw, file.stem),
            index=index,
            location=f"{file.name}[{index}]",
            question=str(raw.get("question", "")),
            gt=str(raw.get("gt", "")),
            custom_features=dict(raw.get("custom_features") or {}),
        )


def malformed(file: Path, index: int, raw: Any) -> ReleasedRecord:
    problem = "not a JSON object" if not isinstance(raw, dict) else "no 'question' string"
    return ReleasedRecord(
        subset=file.stem, index=index, location=f"{file.name}[{index}]", question=json.dumps(raw)[:2000],
        gt="", problem=problem,
    )  # fmt: skip


def subset_of(raw: dict, file_stem: str) -> str:
    category = raw.get("custom_category", raw.get("custom_categoey"))
    if category == 1 and "difficulty" in (raw.get("custom_features") or {}):
        category = 2
    return CATEGORY_SUBSETS.get(category, file_stem) if isinstance(category, int) else file_stem


# ---------------------------------------------------------------------------------------------
# Converting
# ---------------------------------------------------------------------------------------------


def convert(record: ReleasedRecord) -> Conversion | Refusal:
    if record.problem:
        return Refusal(record=record, reason=f"malformed record: {record.problem}")
    rule = RULES.get(record.subset)
    if rule is None:
        return Refusal(
            record=record, reason=f"unknown subset {record.subset!r} (known: {', '.join(SUBSETS)})"
        )
    try:
        return rule(record)
    except ValueError as error:
        return Refusal(record=record, reason=str(error))


def convert_all(records: list[ReleasedRecord]) -> tuple[list[Conversion], list[Refusal]]:
    conversions: list[Conversion] = []
    refusals: list[Refusal] = []
    for record in records:
        outcome = convert(record)
        (conversions if isinstance(outcome, Conversion) else refusals).append(outcome)  # type: ignore[arg-type]
    return conversions, refusals


def _origin(record: ReleasedRecord) -> dict[str, str]:
    return {"source": "surge-released", "subset": record.subset, "index": str(record.index)}


def _language(record: ReleasedRecord) -> Language:
    name = record.language_name
    if not name:
        raise ValueError("no custom_features.language")
    return parse_language(name)  # ValueError names the known languages


def complete_program(record: ReleasedRecord) -> Conversion:
    """ml, cl: the question is a complete program; the label is its stdout."""
    language = _language(record)
    filename = java_filename(record.question) if language is Language.JAVA else None
    program = Program.single(language, record.question, filename=filename, origin=_origin(record))
    return Conversion(record=record, language=language.value, program=program)


# bg: SURGE ran every buggy program under /app with a fixed file name per language (the labels show
# `/app/test.cpp`, `/app/Main.java`) and g++ -std=c++11.
BG_FILES = {Language.PYTHON: "test.py", Language.CPP: "test.cpp", Language.C: "test.c"}
BG_SETTINGS = {Language.CPP: ExecutionSetting(compiler="g++", standard="c++11")}


def buggy_program(record: ReleasedRecord) -> Conversion:
    language = _language(record)
    if language is Language.JAVA:
        filename = java_filename(record.question)
    elif language in BG_FILES:
        filename = BG_FILES[language]
    else:
        raise ValueError(f"bg has no /app protocol for {language.value}")
    program = Program.single(
        language,
        record.question,
        filename=filename,
        protocol=LabelProtocol.COMBINED_WITH_PREFIX,
        origin=_origin(record),
    )
    return Conversion(
        record=record,
        language=language.value,
        program=program,
        setting=BG_SETTINGS.get(language, ExecutionSetting()),
    )


def compiler_program(record: ReleasedRecord) -> Conversion:
    """dr: a C++ snippet under the compiler, standard and -O level of custom_features.key."""
    key = str(record.custom_features.get("key", ""))
    setting = ExecutionSetting.from_surge_key(key)  # ValueError names the expected shape
    # The labels name the file as `test.cpp:8:19`: compiled in its folder under a relative name.
    program = Program.single(
        Language.CPP,
        record.question,
        filename="test.cpp",
        protocol=LabelProtocol.COMPILE_THEN_RUN,
        origin=_origin(record),
    )
    return Conversion(record=record, language="cpp", program=program, setting=setting)


_JAVA_PUBLIC_CLASS = re.compile(r"public\s+(?:(?:final|abstract)\s+)*class\s+(\w+)")
_JAVA_ANY_CLASS = re.compile(r"\bclass\s+(\w+)")


def java_filename(source: str) -> str:
    """javac wants the file named after the public class (else the first class, else Main)."""
    match = _JAVA_PUBLIC_CLASS.search(source) or _JAVA_ANY_CLASS.search(source)
    return f"{match.group(1) if match else 'Main'}.java"


# ---------------------------------------------------------------------------------------------
# sc, tc: a ```code``` block and a ```command``` block
# ---------------------------------------------------------------------------------------------

_CODE_AND_COMMAND = re.compile(
    r"code:\s*```[\w+-]*\n(?P<code>.*)\n```\s*command:\s*```[\w-]*\n?(?P<command>.*?)```", re.DOTALL
)
_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")


def script_program(record: ReleasedRecord) -> Conversion:
    match = _CODE_AND_COMMAND.search(record.question)
    if match is None:
        raise ValueError("no ```code``` block followed by a ```command``` block")
    argv = command_argv(match["command"])
    script = argv[0].removeprefix("./")
    program = Program(
        language=Language.PYTHON,
        files=(ProgramFile(path=script, content=match["code"] + "\n"),),
        entry=script,
        argv=tuple(argv[1:]),
        origin=_origin(record),
    )
    return Conversion(record=record, language="python", program=program)


def command_argv(command: str) -> list[str]:
    """`python x.py --a "1 2"` -> ['x.py', '--a', '1 2'], split like a shell but run without one.

    Some tc arguments span several lines inside quotes; a shell would keep them too, but newlines
    outside quotes would end the command, so they are treated as plain separators (notes: tc).
    """
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError as error:
        raise ValueError(f"unparseable command block ({error}): {command.strip()[:120]!r}") from None
    if words and _PYTHON.match(words[0]):
        words = words[1:]
    if not words or not words[0].endswith(".py"):
        raise ValueError(f"command block does not run a python script: {command.strip()[:120]!r}")
    return words


# ---------------------------------------------------------------------------------------------
# rl: a multi-file repository packed into the question
# ---------------------------------------------------------------------------------------------

_FILE_OPEN = re.compile(r"(?P<name>[\w.+/-]+):<start_file>")
_FILE_CLOSE = re.compile(r"<endfile>|<enfile>|<end_file>")  # all three spellings occur in the release
_INPUT_MARKER = "the input file is:"


def unpack_repository(packed: str) -> tuple[list[ProgramFile], ProgramFile | None]:
    """`name:<start_file>content<endfile>`... -> (repository files, the trailing input file if any)."""
    files: list[ProgramFile] = []
    input_file: ProgramFile | None = None
    position = 0
    while (opening := _FILE_OPEN.search(packed, position)) is not None:
        closing = _FILE_CLOSE.search(packed, opening.end())
        end = closing.start() if closing else len(packed)
        path = opening["name"].removeprefix("./")
        entry = ProgramFile(path=path, content=packed[opening.end() : end])
        if _INPUT_MARKER in packed[position : opening.start()]:
            input_file = entry
        else:
            files.append(entry)
        position = closing.end() if closing else len(packed)
    return files, input_file


def repository_language(files: list[ProgramFile], run_instruction: str) -> Language:
    """custom_features.language says Python for the C++ TUOJ repositories: trust the files instead."""
    if re.search(r"\b(g\+\+|make|clang\+\+)\b", run_instruction) or any(
        f.path.endswith((".cpp", ".cc", ".h", ".hpp")) for f in files
    ):
        return Language.CPP
    if "python" in run_instruction or any(f.path.endswith(".py") for f in files):
        return Language.PYTHON
    raise ValueError(f"cannot tell the repository's language from {run_instruction!r}")


def repository_program(record: ReleasedRecord) -> Conversion:
    run_instruction = str(record.custom_features.get("run_instruction") or "").strip()
    if not run_instruction:
        raise ValueError(
            "no custom_features.run_instruction (PlotNeuralNet records pack a ``` block instead)"
        )
    files, input_file = unpack_repository(record.question)
    if not files:
        raise ValueError("no `name:<start_file>...<endfile>` files in the question")
    language = repository_language(files, run_instruction)
    all_files = tuple(files + ([input_file] if input_file else []))
    entry = next((f.path for f in files if f.path.rsplit("/", 1)[-1].startswith("main.")), files[0].path)
    program = Program(
        language=language,
        files=all_files,
        entry=entry,
        # The TUOJ programs read the input file on stdin (`./main` with `cin >> n`).
        stdin=input_file.content if input_file else "",
        run_instruction=run_instruction,
        origin=_origin(record),
    )
    return Conversion(record=record, language=language.value, program=program)


def lean_program(record: ReleasedRecord) -> Conversion:
    """fl: a Lean 4 file checked against Mathlib (Goedel-Prover's environment, see the notes)."""
    program = Program.single(Language.LEAN4, record.question, filename="Main.lean", origin=_origin(record))
    return Conversion(record=record, language="lean4", program=program)


RULES: dict[str, Callable[[ReleasedRecord], Conversion]] = {
    "ml": complete_program,
    "cl": complete_program,
    "bg": buggy_program,
    "dr": compiler_program,
    "sc": script_program,
    "tc": script_program,
    "rl": repository_program,
    "fl": lean_program,
}
