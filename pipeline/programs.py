"""Reading programs to run: a JSONL file, one program per line, bad lines quarantined (never fatal).

A line is a ``Program`` as JSON, plus two conveniences::

    {"language": "cpp", "files": [{"path": "main.cpp", "content": "..."}], "argv": ["3"], "stdin": ""}
    {"language": "python", "source": "print(6 * 7)"}                 # one file, named by the language spec
    {"language": "c", "path": "hello.c"}                             # a file beside the JSONL
    {"language": "cpp", "source": "...", "settings": ["g++-C++14--O2", {"compiler": "clang++-19"}]}

``settings`` (SURGE dr keys or ExecutionSetting objects) runs the program once per setting.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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
)
from sandboxes.languages import parse_language

RAW_EXCERPT_CHARS = 2000


class ProgramEntry(BaseModel):
    """A program and the settings it is to run under (one run per setting)."""

    program: Program
    settings: tuple[ExecutionSetting, ...] = (ExecutionSetting(),)


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
            except (ValueError, ValidationError, OSError) as error:
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
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"line is not UTF-8 ({error.reason} at byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(data, dict):
        raise ValueError(f"a program line must be a JSON object, not {type(data).__name__}")
    settings = [parse_setting(s) for s in _as_list(data.pop("settings", data.pop("setting", [])))]
    if "language" not in data:
        raise ValueError("missing field 'language'")
    data["language"] = parse_language(str(data["language"]))
    data = _expand_shorthands(data, base_dir)
    program = Program.model_validate(data)
    return ProgramEntry(program=program, settings=tuple(settings) or (ExecutionSetting(),))


def _expand_shorthands(data: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    if "files" in data:
        return data
    if "source" in data:
        filename = data.pop("filename", "main")
        data["files"] = [ProgramFile(path=filename, content=str(data.pop("source")))]
    elif "path" in data:
        file_path = base_dir / str(data.pop("path"))
        if not file_path.is_file():
            raise ValueError(f"file not found: {file_path}")
        data["files"] = [ProgramFile(path=file_path.name, content=file_path.read_text(encoding="utf-8"))]
    else:
        raise ValueError("a program needs 'files', 'source' or 'path'")
    return data


def parse_setting(value: Any) -> ExecutionSetting:
    if isinstance(value, str):
        return ExecutionSetting.from_surge_key(value)
    if isinstance(value, dict):
        return ExecutionSetting.model_validate(value)
    raise ValueError(f"a setting is a SURGE key string or an object, not {value!r}")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def describe_error(error: Exception) -> str:
    """One readable line: pydantic's first error with its field path, or the exception's text."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        more = f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
        return f"{where}: {first['msg']}{more}"
    return str(error)


def plan_requests(
    entries: Iterable[ProgramEntry],
    profiles: Iterable[EnvironmentProfile],
    limits: Limits,
    repeats: int,
    default_setting: ExecutionSetting | None = None,
) -> list[RunRequest]:
    """Every (program, setting, profile) combination, each run id once."""
    requests: dict[str, RunRequest] = {}
    for profile in profiles:
        for entry in entries:
            for setting in entry.settings:
                if default_setting is not None and setting == ExecutionSetting():
                    setting = default_setting
                request = RunRequest(
                    program=entry.program, setting=setting, profile=profile, limits=limits, repeats=repeats
                )
                requests.setdefault(request.run_id, request)
    return list(requests.values())
