"""Reading programs to run: a JSONL file, one program per line, bad lines quarantined (never fatal).

A line is a ``Program`` as JSON, plus two conveniences::

    {"language": "cpp", "files": [{"path": "main.cpp", "content": "..."}], "argv": ["3"], "stdin": ""}
    {"language": "python", "source": "print(6 * 7)"}                 # one file, named by the language spec
    {"language": "c", "path": "hello.c"}                             # a file under the JSONL's folder
    {"language": "cpp", "source": "...", "settings": ["g++-C++14--O2", {"compiler": "clang++-19"}]}

``settings`` (SURGE dr keys or ExecutionSetting objects) runs the program once per setting; a setting its
language's toolchain cannot take (the spec's ``settings``, sandboxes/languages/) makes the line bad. A
``path`` names a file under the JSONL's folder once links are resolved, never one elsewhere on the host.
Every line gives an entry or a quarantine record with its reason: ``parse_program_line`` raises only
ValueError (pydantic's ValidationError is one) or OSError (a file the ``path`` names cannot be read).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from pipeline.errors import InputError
from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Limits,
    Program,
    ProgramFile,
    QuarantinedRecord,
    RunRequest,
    lone_surrogate,
)
from sandboxes.languages import parse_language, program_setting_refusal

RAW_EXCERPT_CHARS = 2000


def method_setting_for(program: Program, setting: ExecutionSetting | None) -> ExecutionSetting:
    """A construction method's setting where `program` can take it (OJCode's g++ -std=c++14 is its C++
    programs'), else the language's usual build: never a compiler that is not the program's own."""
    if setting is None or program_setting_refusal(program, setting):
        return ExecutionSetting()
    return setting


SHOWN_SETTING_CHARS = 120


class ProgramEntry(BaseModel):
    """A program and the settings it is to run under (one run per setting)."""

    program: Program
    settings: tuple[ExecutionSetting, ...] = (ExecutionSetting(),)

    @property
    def has_own_settings(self) -> bool:
        return self.settings != (ExecutionSetting(),)


class SettingReach(BaseModel):
    """What a command-line setting did: the programs it applied to, those that cannot take it (they ran as
    usual; by language, or "<language> (run_instruction)" for a program that builds itself), and those
    that kept the settings of their own line."""

    applied: int = 0
    not_applied: int = 0
    not_applied_to: dict[str, int] = {}
    own_settings: int = 0


def load_program_file(path: Path) -> tuple[list[ProgramEntry], list[QuarantinedRecord]]:
    if not path.is_file():
        raise InputError(f"no such programs file: {path}", hint="pass a JSONL file, one program per line")
    entries: list[ProgramEntry] = []
    quarantined: list[QuarantinedRecord] = []
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                entries.append(parse_program_line(raw, base_dir=path.parent))
            except (ValueError, OSError) as error:  # ValidationError is a ValueError
                quarantined.append(
                    QuarantinedRecord(
                        stage="load-programs",
                        source=path.name,
                        location=f"{path}:{number}",
                        reason=describe_error(error),
                        raw=raw[:RAW_EXCERPT_CHARS].decode("utf-8", errors="replace"),
                    )
                )
    return entries, quarantined


def parse_program_line(raw: bytes, base_dir: Path) -> ProgramEntry:
    """One line as a program and its settings; ValueError or OSError says why the line is bad."""
    data = json_object(raw)
    raw_settings = _as_list(data.pop("settings", data.pop("setting", [])))
    if "language" not in data:
        raise ValueError("missing field 'language'")
    data["language"] = parse_language(str(data["language"]))
    program = Program.model_validate(_expand_shorthands(data, base_dir))
    settings = tuple(setting_for(program, value) for value in raw_settings)
    return ProgramEntry(program=program, settings=settings or (ExecutionSetting(),))


def json_object(raw: bytes) -> dict[str, Any]:
    """The line's JSON object, whose every string is Unicode text (ids, files and Parquet need UTF-8)."""
    try:
        data = json.loads(raw.decode("utf-8"))
        surrogate = lone_surrogate(data)
    except UnicodeDecodeError as error:
        raise ValueError(f"line is not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        # Python's JSON reader recurses once per level; a program line is a flat object.
        raise ValueError("JSON nested too deeply to read (a program line is a flat object)") from None
    if surrogate:
        raise ValueError(f"line holds {surrogate}")
    if not isinstance(data, dict):
        raise ValueError(f"a program line must be a JSON object, not {type(data).__name__}")
    return data


def _expand_shorthands(data: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    if "files" in data:
        return data
    if "source" in data:  # the file's path and content are checked by ProgramFile, as any file's
        data["files"] = [{"path": data.pop("filename", "main"), "content": data.pop("source")}]
    elif "path" in data:
        data["files"] = [read_beside(base_dir, data.pop("path"))]
    else:
        raise ValueError("a program needs 'files', 'source' or 'path'")
    return data


def read_beside(base_dir: Path, name: Any) -> ProgramFile:
    """The ``path`` shorthand: a regular file under ``base_dir`` once every link is resolved, so a line can
    never bring a host file (/etc/shadow, /proc/self/environ) into the store. Read as written (bytes
    decoded as UTF-8, line ends kept)."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise ValueError(f"'path' must name a file under the programs file's folder, not {name!r}")
    folder = base_dir.resolve()
    try:
        target = (folder / name).resolve()
    except RuntimeError:  # Python 3.11 raises it for a loop of links
        raise ValueError(f"'path' {name!r} is a loop of links") from None
    if not target.is_relative_to(folder):
        raise ValueError(
            f"'path' {name!r} is outside the programs file's folder {folder} (it resolves to {target}): "
            "a program line may only name files under it"
        )
    if not target.is_file():
        raise ValueError(f"file not found: {folder / name} (a 'path' names a regular file)")
    try:
        content = target.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"'path' {name!r} is not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    return ProgramFile(path=target.name, content=content)


def setting_for(program: Program, value: Any) -> ExecutionSetting:
    """A line's setting, if the program's language can take it (a setting is a fact of a toolchain)."""
    setting = parse_setting(value)
    if refusal := program_setting_refusal(program, setting):
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
        raise ValueError(f"setting {shown[:SHOWN_SETTING_CHARS]!r} cannot apply: {refusal}")
    return setting


def parse_setting(value: Any) -> ExecutionSetting:
    if isinstance(value, str):
        return ExecutionSetting.from_surge_key(value)
    if isinstance(value, dict):
        return ExecutionSetting.model_validate(value)
    raise ValueError(f"a setting is a SURGE key string or an object, not {repr(value)[:SHOWN_SETTING_CHARS]}")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def describe_error(error: Exception) -> str:
    """One readable line: pydantic's first error with its field path, or the exception's text."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])  # empty: the program as a whole
        message = first["msg"].removeprefix("Value error, ")  # our own validators' words, as written
        more = f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
        return f"{where}: {message}{more}" if where else f"{message}{more}"
    return str(error)


def with_default_setting(
    entries: Iterable[ProgramEntry], setting: ExecutionSetting
) -> tuple[list[ProgramEntry], SettingReach]:
    """The command line's setting on every program without settings of its own whose language can take
    it (g++-C++14--O2 reaches the C++ programs); the others run as usual, and the reach says how many."""
    updated: list[ProgramEntry] = []
    applied = own = 0
    refused: Counter[str] = Counter()
    for entry in entries:
        if entry.has_own_settings:
            own += 1
        elif program_setting_refusal(entry.program, setting) is None:
            entry = entry.model_copy(update={"settings": (setting,)})
            applied += 1
        else:
            builds_itself = " (run_instruction)" if entry.program.run_instruction else ""
            refused[entry.program.language.value + builds_itself] += 1
        updated.append(entry)
    reach = SettingReach(
        applied=applied,
        not_applied=sum(refused.values()),
        not_applied_to=dict(sorted(refused.items())),
        own_settings=own,
    )
    return updated, reach


def plan_requests(
    entries: Sequence[ProgramEntry], profiles: Iterable[EnvironmentProfile], limits: Limits, repeats: int
) -> list[RunRequest]:
    """Every (program, setting, profile) combination, each run id once (a command-line setting is on the
    entries already: ``with_default_setting``)."""
    requests: dict[str, RunRequest] = {}
    for profile in profiles:
        for entry in entries:
            for setting in entry.settings:
                request = RunRequest(
                    program=entry.program, setting=setting, profile=profile, limits=limits, repeats=repeats
                )
                requests.setdefault(request.run_id, request)
    return list(requests.values())
