"""rl: a multi-file repository packed into the question -> a program, its run instruction and input.

Two packings occur in the release (shared/notes/surge-ground-truth.md, "rl"):
- `name:<start_file>content<endfile>` per file (the closing tag is also spelled `<enfile>` and
  `<end_file>`), optionally ending with `, and the input file is:./input/10.txt:<start_file>...`;
  `custom_features.run_instruction` says how to build and run it.
- PlotNeuralNet (13 records, `custom_features` = {"repo": "PlotNeuralNet"}): `repo:\\n```<the library's
  Python>```function:\\n<def generate_architecture_N(): return [...]>` and no run instruction. The label
  is the LaTeX file the library's `to_generate(arch, pathname)` writes, so the run instruction is
  inferred: call it on the function's list and print the file.
"""

from __future__ import annotations

import re
import shlex

from pipeline.records import Language, Program, ProgramFile
from pipeline.subsets.base import Candidate, ProgramPlan, Unrunnable
from pipeline.subsets.programs import origin
from sources.surge_release import ReleasedRecord

_FILE_OPEN = re.compile(r"(?P<name>[\w.+/-]+):<start_file>")
_FILE_CLOSE = re.compile(r"<endfile>|<enfile>|<end_file>")  # all three spellings occur in the release
_INPUT_MARKER = "the input file is:"
_FENCED_REPO = re.compile(
    r"repo:\s*```[\w+-]*\n(?P<code>.*?)```\s*function:\s*\n?(?P<function>.*)", re.DOTALL
)
_FUNCTION_NAME = re.compile(r"^\s*def\s+(\w+)\s*\(\s*\)\s*:", re.MULTILINE)
_RELATIVE_IMPORT = re.compile(r"^\s*from\s+\.\w*\s+import\s+.*$", re.MULTILINE)
GENERATED_TEX = "generated.tex"


def unpack_repository(packed: str) -> tuple[list[ProgramFile], ProgramFile | None]:
    """`name:<start_file>content<endfile>`... -> (repository files, the trailing input file if any)."""
    files: list[ProgramFile] = []
    input_file: ProgramFile | None = None
    position = 0
    while (opening := _FILE_OPEN.search(packed, position)) is not None:
        closing = _FILE_CLOSE.search(packed, opening.end())
        end = closing.start() if closing else len(packed)
        entry = ProgramFile(path=opening["name"].removeprefix("./"), content=packed[opening.end() : end])
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


# ---------------------------------------------------------------------------------------------
# What a run instruction needs that the release does not contain
# ---------------------------------------------------------------------------------------------

_SOURCE_WORD = re.compile(r"^[\w./+-]+\.(?:c|cc|cpp|cxx|h|hpp|py|java|rs|js)$")
_MAKE_RULE = re.compile(r"^(?P<targets>[^\s:=#][^:=#]*?)\s*:(?!=)(?P<deps>[^\n;]*)", re.MULTILINE)


def missing_pieces(files: list[ProgramFile], run_instruction: str) -> list[str]:
    """Files, make targets and binaries the run instruction needs and nothing provides, each quoted."""
    present = {f.path for f in files}
    built: set[str] = set()
    missing: list[str] = []
    makefile = next((f for f in files if f.path in ("Makefile", "makefile", "GNUmakefile")), None)
    for line in run_instruction.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if not words:
            continue
        if words[0] == "make":
            missing += _make_gaps(makefile, present, words[1:])
            built |= _make_targets(makefile)
            continue
        if "-o" in words[:-1]:
            built.add(words[words.index("-o") + 1].removeprefix("./"))
        for word in words[1:]:
            if _SOURCE_WORD.match(word) and word.removeprefix("./") not in present:
                missing.append(f"file '{word}' named in the run instruction `{line.strip()}`")
        program = words[0]
        if program.startswith("./") and program[2:] not in present | built:
            missing.append(f"binary '{program}' that nothing in the run instruction or Makefile builds")
    return missing


def _make_targets(makefile: ProgramFile | None) -> set[str]:
    if makefile is None:
        return set()
    return {t for m in _MAKE_RULE.finditer(makefile.content) for t in m["targets"].split()}


def _make_gaps(makefile: ProgramFile | None, present: set[str], goals: list[str]) -> list[str]:
    if makefile is None:
        return ["file 'Makefile' (the run instruction runs `make`)"]
    targets = _make_targets(makefile)
    gaps = [
        f"make target '{g}' (not in the Makefile)"
        for g in goals
        if not g.startswith("-") and g not in targets
    ]
    for rule in _MAKE_RULE.finditer(makefile.content):
        for dep in rule["deps"].split():
            if _SOURCE_WORD.match(dep) and dep not in present and dep not in targets:
                gaps.append(f"file '{dep}' (the Makefile builds `{rule['targets'].strip()}` from it)")
    return gaps


# ---------------------------------------------------------------------------------------------
# The two packings
# ---------------------------------------------------------------------------------------------


def packed_program(record: ReleasedRecord, run_instruction: str) -> ProgramPlan:
    files, input_file = unpack_repository(record.question)
    if not files:
        raise ValueError("no `name:<start_file>...<endfile>` files in the question")
    language = repository_language(files, run_instruction)
    entry = next((f.path for f in files if f.path.rsplit("/", 1)[-1].startswith("main.")), files[0].path)
    program = Program(
        language=language,
        files=tuple(files + ([input_file] if input_file else [])),
        entry=entry,
        # The TUOJ programs read the input file on stdin (`./main` with `cin >> n`).
        stdin=input_file.content if input_file else "",
        run_instruction=run_instruction,
        origin=origin(record),
    )
    missing = tuple(missing_pieces(files, run_instruction))
    repaired = reconstruct(files, run_instruction) if missing else None
    alternatives: tuple[Candidate, ...] = ()
    if repaired is not None:
        files_now, instruction, repair = repaired
        rebuilt = program.model_copy(
            update={
                "files": tuple(files_now + ([input_file] if input_file else [])),
                "run_instruction": instruction,
            }
        )
        alternatives = (Candidate(name=f"reconstructed: {repair}", program=rebuilt, repair=repair),)
    return ProgramPlan(language=language.value, program=program, missing=missing, alternatives=alternatives)


# ---------------------------------------------------------------------------------------------
# Reconstruction: the obvious repair of a repository that cannot build as released. Run instructions that
# call a binary nothing builds, or a Makefile naming a source the release lacks, would otherwise leave a
# label unchecked that the obvious build can check.
# ---------------------------------------------------------------------------------------------

_COMPILERS = {".cpp": "g++", ".cc": "g++", ".cxx": "g++", ".c": "gcc"}


def reconstruct(files: list[ProgramFile], run_instruction: str) -> tuple[list[ProgramFile], str, str] | None:
    """(files, run instruction, what was repaired) or None when no obvious repair exists: a Makefile's
    missing source becomes the one unused source of its kind that it stands for; a binary nothing builds
    is built from the sources present, before the run instruction runs it."""
    files, repairs = _make_sources(files)
    instruction = run_instruction
    for gap in missing_pieces(files, run_instruction):
        binary = _UNBUILT.match(gap)
        build = _build_line(files, binary["path"]) if binary else None
        if build is None:
            return None  # a missing file or target: nothing obvious stands for it
        instruction = f"{build}\n{instruction}"
        repairs.append(f"built ./{binary['path']} with `{build}`" if binary else "")
    if not repairs or missing_pieces(files, instruction):
        return None
    return files, instruction, "; ".join(repairs)


_UNBUILT = re.compile(r"binary '\./(?P<path>[^']+)' that nothing")


def _build_line(files: list[ProgramFile], binary: str) -> str | None:
    """`g++ a.cpp b.cpp -o main.exe`: every source of the one compiled language present."""
    kinds = {_COMPILERS[s] for f in files if (s := "." + f.path.rsplit(".", 1)[-1]) in _COMPILERS}
    if len(kinds) != 1:
        return None
    sources = sorted(f.path for f in files if "." + f.path.rsplit(".", 1)[-1] in _COMPILERS)
    return f"{kinds.pop()} {' '.join(sources)} -o {binary}"


def _make_sources(files: list[ProgramFile]) -> tuple[list[ProgramFile], list[str]]:
    """The Makefile with each missing source renamed to the single present source of the same extension
    that it does not name (`main-3.cpp` where only `main.cpp` is unused)."""
    makefile = next((f for f in files if f.path in ("Makefile", "makefile", "GNUmakefile")), None)
    if makefile is None:
        return files, []
    present = {f.path for f in files}
    text, repairs = makefile.content, []
    for gap in sorted({d for r in _MAKE_RULE.finditer(text) for d in r["deps"].split()}):
        if not _SOURCE_WORD.match(gap) or gap in present or gap in _make_targets(makefile):
            continue
        suffix = "." + gap.rsplit(".", 1)[-1]
        unused = [
            p
            for p in present
            if p.endswith(suffix) and not re.search(rf"(?<![\w./-]){re.escape(p)}(?![\w.-])", text)
        ]
        if len(unused) == 1:
            text = re.sub(rf"(?<![\w./-]){re.escape(gap)}(?![\w.-])", unused[0], text)
            repairs.append(
                f"the Makefile's missing '{gap}' read as '{unused[0]}', the one unused {suffix} source"
            )
    if not repairs:
        return files, []
    fixed = makefile.model_copy(update={"content": text})
    return [fixed if f is makefile else f for f in files], repairs


def generator_program(record: ReleasedRecord) -> ProgramPlan:
    """PlotNeuralNet: library + `def generate_architecture_N(): return [...]`, label = the written .tex."""
    match = _FENCED_REPO.search(record.question)
    if match is None:
        raise Unrunnable(
            "no_run_instruction",
            "no custom_features.run_instruction, and the question is neither `name:<start_file>` files "
            "nor a PlotNeuralNet `repo: ``` ``` function:` block",
        )
    library, function = match["code"], match["function"].strip()
    name = _FUNCTION_NAME.search(function)
    if name is None or "def to_generate(" not in library:
        lacking = "no `to_generate` in the repository" if name else "no zero-argument function to call"
        raise Unrunnable("no_run_instruction", f"no custom_features.run_instruction and {lacking}")
    # The library's modules are concatenated in the question: their relative imports have nothing to import.
    source = "\n".join(
        [
            _RELATIVE_IMPORT.sub("", library),
            function,
            "",
            "import contextlib, io, os, sys, tempfile",
            f"_path = os.path.join(tempfile.gettempdir(), {GENERATED_TEX!r})",
            "with contextlib.redirect_stdout(io.StringIO()):",
            f"    to_generate({name.group(1)}(), _path)",
            "sys.stdout.write(open(_path).read())",
            "",
        ]
    )
    program = Program(
        language=Language.PYTHON,
        files=(ProgramFile(path="generate.py", content=source),),
        entry="generate.py",
        origin=origin(record),
    )
    note = (
        f"run instruction inferred: to_generate({name.group(1)}(), path) writes the .tex file the label holds"
    )
    return ProgramPlan(language="python", program=program, variant="inferred run instruction", note=note)


def to_program(record: ReleasedRecord) -> ProgramPlan:
    run_instruction = str(record.custom_features.get("run_instruction") or "").strip()
    if run_instruction:
        return packed_program(record, run_instruction)
    return generator_program(record)
