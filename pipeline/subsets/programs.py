"""Helpers the subsets' ``to_program`` rules share: provenance, the record's language, Java file names."""

from __future__ import annotations

from pipeline.questions import code_and_input
from pipeline.records import ExecutionSetting, Language, Program, SourceItem
from pipeline.subsets.base import ProgramPlan
from sandboxes.languages import spec_for, spelled_standard
from sandboxes.languages.java import class_file_name
from sources.surge_release import ReleasedRecord


def origin(record: ReleasedRecord) -> dict[str, str]:
    return {"source": "surge-released", "subset": record.subset, "index": str(record.index)}


def record_language(record: ReleasedRecord) -> Language:
    if record.language is None:
        raise ValueError("no custom_features.language")
    return record.language


def named_setting(record: ReleasedRecord) -> ExecutionSetting:
    """A language spelled with its standard (OJCode's "C++14") compiles under it, as its row was built."""
    return ExecutionSetting(standard=spelled_standard(record.upstream_language))


def complete_program(record: ReleasedRecord) -> ProgramPlan:
    """ml, cl: the question is a complete program (with its input, where it reads stdin); the label is its
    stdout."""
    language = record_language(record)
    code, stdin = code_and_input(record.question)
    filename = class_file_name(code) if language is Language.JAVA else None
    program = Program.single(language, code, filename=filename, stdin=stdin, origin=origin(record))
    return ProgramPlan(language=language.value, program=program, setting=named_setting(record))


def recorded_time_s(value: object) -> float | None:
    """sc records store seconds as a float, tc as text: `"12.6223 seconds"`; some tc have null."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.strip():
        try:
            return float(value.split()[0])
        except ValueError:
            return None
    return None


def refactored_language(source: SourceItem, program: Program) -> str:
    """The language a refactored row names: upstream's spelling, else the language's display name."""
    return source.upstream_language or spec_for(program.language).display_name


def code_lines(program: Program) -> int:
    return program.entry_file.content.count("\n") + 1
