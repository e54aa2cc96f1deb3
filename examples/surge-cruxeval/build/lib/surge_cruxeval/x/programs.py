"""How a CRUXEval-X record becomes a self-checking program, and its mutant.

The program is the record's code, laid out as its harness needs (one file; Go's test file in a module
folder), run as its harness language (languages.py: Java with ``-ea``, C# with ``DEBUG``, ...); its label
is the check's verdict under the harness's convention. The mutant is the same program with the expected
value's first literal altered (mutate.py): a check that can fail fails it. Code that is no program of its
language (prose where code should be) is ``not_a_program``; a language with no sandbox here is
``not_run``, naming what is missing.
"""

from __future__ import annotations

import re

from pipeline.records import LabelProtocol, Language, Program, ProgramFile
from pipeline.subsets.base import ProgramPlan, Unrunnable
from pipeline.subsets.programs import origin
from sandboxes.languages import REGISTRY
from sources.surge_release import ReleasedRecord
from surge_cruxeval.x.languages import HARNESSES, Harness
from surge_cruxeval.x.mutate import mutated
from surge_cruxeval.x.records import code_of

GO_MODULE = "module f\n\ngo 1.19\n"  # `go test` runs in a module folder; the programs import only the stdlib
# A second D module, compiled beside the program, whose constructor runs before the unittests: without a
# trace handler a failed assert prints its message and line alone. With one, it prints a stack trace of
# addresses that ASLR moves on every run, so the repeats of one failing check never agreed.
D_QUIET_TRACE = (
    "module surge_quiet_trace;\n"
    "shared static this() { import core.runtime : Runtime; Runtime.traceHandler = null; }\n"
)
PROSE_CHARS = 80


def harness_of(record: ReleasedRecord) -> Harness:
    stem = record.custom_features.get("language")
    harness = HARNESSES.get(stem) if isinstance(stem, str) else None
    if harness is None:
        raise ValueError(f"custom_features.language {stem!r} is none of CRUXEval-X's languages")
    return harness


def to_program(record: ReleasedRecord) -> ProgramPlan:
    """The plan: program, harness convention, mutant. ValueError (the audit's refusal) for a record that is
    not the reader's; Unrunnable for code that is no program, or a language with no sandbox here."""
    harness = harness_of(record)
    code = code_of(record)
    if not re.search(harness.marker, code, re.MULTILINE):
        first = next((line.strip() for line in code.splitlines() if line.strip()), "")
        reason = (
            f"no {harness.language} program (nothing matches `{harness.marker}`): {first[:PROSE_CHARS]!r}"
        )
        raise Unrunnable("not_a_program", reason)
    if Language(harness.runs_as) not in REGISTRY:
        raise Unrunnable("not_run", f"no sandbox language {harness.runs_as!r} is registered here")
    program = program_of(harness, code, record)
    mutant, mutation = mutant_of(harness, record, program)
    return ProgramPlan(
        language=harness.language,
        program=program,
        note=f"{harness.stem}.json as {harness.runs_as}",
        check=harness.convention,
        mutant=mutant,
        mutation=mutation,
    )


def program_of(harness: Harness, code: str, record: ReleasedRecord) -> Program:
    language = Language(harness.runs_as)
    files: tuple[ProgramFile, ...] = (ProgramFile(path="main", content=code),)
    if harness.stem == "go":  # `go test` reads a _test.go file in a module folder
        files = (ProgramFile(path="f_test.go", content=code), ProgramFile(path="go.mod", content=GO_MODULE))
    if harness.stem == "d":  # the program keeps its own file name (test.d), as diagnostics quote it
        source = REGISTRY[language].source_name
        files = (
            ProgramFile(path=source, content=code),
            ProgramFile(path="surge_quiet_trace.d", content=D_QUIET_TRACE),
        )
    return Program(language=language, files=files, protocol=LabelProtocol.SELF_CHECK, origin=origin(record))


def mutant_of(harness: Harness, record: ReleasedRecord, program: Program) -> tuple[Program | None, str]:
    """The program with its expected value altered, and how; or None and why there is none."""
    expected, at = record.custom_features.get("expected"), record.custom_features.get("expected_at")
    if not isinstance(expected, str) or not isinstance(at, int):
        return None, f"the check's expected value could not be located (`{harness.locator.anchor}`)"
    empties = harness.empties
    change = mutated(expected, harness.lexicon, empties)
    if isinstance(change, str):
        return None, f"{change}: {harness.no_empty_rule}" if harness.no_empty_rule else change
    mask = len("??")
    code = record.question[:at] + change.expected + record.question[at + mask :]
    entry = program.entry_file
    files = tuple(
        f.model_copy(update={"content": code}) if f.path == entry.path else f for f in program.files
    )
    return program.model_copy(update={"files": files}), change.how
