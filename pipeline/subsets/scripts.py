"""sc, tc: a ```code``` block and a ```command``` block -> a Python script and its argument vector.

The released command is the argv joined with spaces, mostly without quotes: a value such as
the matrix `87 19 45 ;71 88 25` was one argument when the label was made, and `shlex.split` makes six of
it, which argparse then rejects (`unrecognized arguments`). So the argv is rebuilt from the script's own
parser: its option strings and how many values each takes (`nargs`, `action`), read from the source with
`ast` (never executed). An option taking one value gets everything up to the next option string, as one
argument with its original spacing. Where that reading differs from a plain shell split, the shell split
is kept as an alternative candidate: the audit tries it only if the first does not reproduce, and the
row records which candidate it kept.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.records import Language, Program, ProgramFile
from pipeline.subsets.base import Candidate, ProgramPlan
from pipeline.subsets.programs import origin, recorded_time_s
from sources.surge_release import ReleasedRecord

PARSER_VARIANT = "argv from the script's parser"
SHELL_VARIANT = "argv split like a shell"

_CODE_AND_COMMAND = re.compile(
    r"code:\s*```[\w+-]*\n(?P<code>.*)\n```\s*command:\s*```[\w-]*\n?(?P<command>.*?)```", re.DOTALL
)
_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")
_NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version", "append_const"}


@dataclass(frozen=True)
class Option:
    """What argparse needs to know to split a command line: how many values follow the option."""

    values: int | str  # 0, 1, N, or argparse's '?', '*', '+'


@dataclass(frozen=True)
class Token:
    text: str  # quotes removed
    start: int  # span in the command text
    end: int
    quoted: bool


def split_blocks(question: str) -> tuple[str, str]:
    match = _CODE_AND_COMMAND.search(question)
    if match is None:
        raise ValueError("no ```code``` block followed by a ```command``` block")
    return match["code"], match["command"]


def parser_options(code: str) -> dict[str, Option]:
    """Option strings -> Option, from every `*.add_argument(...)` call with literal arguments."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    options: dict[str, Option] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "add_argument":
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)}
        option = Option(values=_values(keywords))
        options.update({name: option for name in names if name.startswith("-")})
    return options


def _values(keywords: Mapping[str | None, object]) -> int | str:
    if keywords.get("action") in _NO_VALUE_ACTIONS:
        return 0
    nargs = keywords.get("nargs")
    return nargs if isinstance(nargs, int | str) and nargs is not None else 1


def tokens(command: str) -> list[Token]:
    """Words with their spans; quotes group and are removed, as a shell would, but nothing else is
    special (the original runner used no shell: `;`, `|`, `$` are literal). An unclosed quote is literal."""
    found: list[Token] = []
    i, n = 0, len(command)
    while i < n:
        if command[i].isspace():
            i += 1
            continue
        start, text, quoted = i, [], False
        while i < n and not command[i].isspace():
            quote = command[i]
            close = command.find(quote, i + 1) if quote in "\"'" else -1
            if close > i:
                text.append(command[i + 1 : close])
                quoted, i = True, close + 1
            else:
                text.append(command[i])
                i += 1
        found.append(Token("".join(text), start, i, quoted))
    return found


def _option_of(token: Token, options: dict[str, Option]) -> Option | None:
    if token.quoted:
        return None
    return options.get(token.text.split("=", 1)[0]) if token.text.startswith("-") else None


def rebuild_argv(command: str, words: list[Token], options: dict[str, Option]) -> list[str]:
    """Group the words as the script's parser would have received them (see the module docstring)."""
    argv: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        option = _option_of(word, options)
        argv.append(word.text)
        i += 1
        if option is None or "=" in word.text or option.values == 0:
            continue
        j = i
        while j < len(words) and _option_of(words[j], options) is None:
            j += 1
        values = words[i:j]
        if option.values in (1, "?") and len(values) > 1:
            argv.append(_joined(command, values))
        elif isinstance(option.values, int) and len(values) > option.values:
            argv.extend(w.text for w in values[: option.values])
            argv.append(_joined(command, values[option.values :]))
        else:
            argv.extend(w.text for w in values)
        i = j
    return argv


def _joined(command: str, values: list[Token]) -> str:
    """Several words that were one argument: the original text between them, unless quotes were involved."""
    if any(w.quoted for w in values):
        return " ".join(w.text for w in values)
    return command[values[0].start : values[-1].end]


def shell_argv(command: str) -> list[str] | None:
    try:
        return shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None


def script_and_args(argv: list[str], command: str) -> tuple[str, list[str]]:
    if argv and _PYTHON.match(argv[0]):
        argv = argv[1:]
    if not argv or not argv[0].endswith(".py"):
        raise ValueError(f"command block does not run a python script: {command.strip()[:120]!r}")
    return argv[0].removeprefix("./"), argv[1:]


def command_argvs(code: str, command: str) -> list[tuple[str, list[str]]]:
    """(variant name, argv incl. the script) candidates, best first, without duplicates."""
    words = tokens(command.strip())
    candidates = []
    options = parser_options(code)
    if options:
        candidates.append((PARSER_VARIANT, rebuild_argv(command.strip(), words, options)))
    shell = shell_argv(command)
    candidates.append((SHELL_VARIANT, shell if shell is not None else [w.text for w in words]))
    unique: list[tuple[str, list[str]]] = []
    for name, argv in candidates:
        if all(argv != kept for _, kept in unique):
            unique.append((name, argv))
    return unique


def to_program(record: ReleasedRecord) -> ProgramPlan:
    code, command = split_blocks(record.question)
    programs = []
    for name, argv in command_argvs(code, command):
        script, args = script_and_args(argv, command)
        files = (ProgramFile(path=script, content=code + "\n"),)
        program = Program(
            language=Language.PYTHON, files=files, entry=script, argv=tuple(args), origin=origin(record)
        )
        programs.append(Candidate(name=name, program=program))
    first, *others = programs
    return ProgramPlan(
        language="python",
        program=first.program,
        variant=first.name,
        alternatives=tuple(others),
        recorded_time_s=recorded_time_s(record.custom_features.get("time")),
    )
