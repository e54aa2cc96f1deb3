"""Property tests over the program-line reader: whatever a line holds (any bytes, any JSON, deep nesting,
odd Unicode, NULs, huge numbers, hostile paths and settings), it gives an entry that can be planned and
stored, or a quarantine record with its reason; never another exception."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.programs import (
    ProgramEntry,
    describe_error,
    load_program_file,
    parse_program_line,
    plan_requests,
    with_default_setting,
)
from pipeline.records import EnvironmentProfile, ExecutionSetting, Limits, QuarantinedRecord, RunRequest
from sandboxes.languages import REGISTRY, program_setting_refusal

PROFILE = EnvironmentProfile(name="property")
EXAMPLES = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text as hostile input writes it: every code point, lone surrogates (JSON's "\ud800") and NUL included.
any_char = st.characters() | st.integers(0xD800, 0xDFFF).map(chr) | st.sampled_from(["\x00", "/", "\\", "."])
odd_text = st.text(any_char, max_size=12) | st.sampled_from(
    [
        "",
        "\x00",
        "\ud800",
        "a\x00b",
        "..",
        "/",
        "main.py",
        "main.py/x",
        "./a",
        "a//b",
        "é",
        "\u202e",
        "x" * 300,
    ]
)
numbers = st.integers() | st.floats(allow_nan=True, allow_infinity=True)
json_values = st.recursive(
    st.none() | st.booleans() | numbers | odd_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(odd_text, inner, max_size=4),
    max_leaves=12,
)
languages = (
    st.sampled_from([*(lang.value for lang in REGISTRY), "c++", "py", "js", "cobol", "", "\ud800", "PYTHON"])
    | json_values
)
settings_values = st.sampled_from(
    ["g++-C++14--O2", "clang++-C++11--O1", "g++-C++99--O2", "bogus", ""]
) | st.fixed_dictionaries(
    {},
    optional={
        "compiler": st.sampled_from(["g++", "gcc", "clang-14", "rustc", "javac", "mcs", "python3", "sh"]),
        "standard": st.sampled_from(["c++14", "c11", "2021", "c++99"]) | odd_text,
        "optimization": st.sampled_from(["O0", "O2", "Os", "O9"]),
        "extra_flags": st.lists(odd_text, max_size=2),
        "source_paths": st.sampled_from(["absolute", "relative", "other"]),
    },
)
paths = (
    st.sampled_from(
        ["ok.py", "escape.py", "loop.py", "sub", "sub/../ok.py", "/etc/shadow", "/proc/self/environ", "../x"]
    )
    | odd_text
)
files = st.lists(st.fixed_dictionaries({"path": odd_text, "content": odd_text}), max_size=3)
program_lines = st.fixed_dictionaries(
    {"language": languages},
    optional={
        "source": odd_text | json_values,
        "path": paths,
        "files": files | json_values,
        "entry": odd_text,
        "argv": st.lists(odd_text, max_size=3),
        "stdin": odd_text,
        "run_instruction": odd_text,
        "origin": st.dictionaries(odd_text, odd_text, max_size=2) | json_values,
        "settings": st.lists(settings_values, max_size=3) | settings_values,
        "protocol": st.sampled_from(["stdout", "bogus"]),
        "filename": odd_text,
    },
)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """A programs file's folder: a file, a folder, a link out of it and a loop of links."""
    with tempfile.TemporaryDirectory() as name:
        root = Path(name) / "programs"
        (root / "sub").mkdir(parents=True)
        (root / "ok.py").write_text("print(1)\n")
        (root / "escape.py").symlink_to(Path(name) / "secret.py")
        (Path(name) / "secret.py").write_text("host secret\n")
        (root / "loop.py").symlink_to(root / "loop.py")
        yield root


def encode(value: Any) -> bytes:
    """The line as a hostile writer makes it: lone surrogates as JSON escapes, huge numbers as digits."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode("ascii")


def check(raw: bytes, folder: Path) -> ProgramEntry | QuarantinedRecord:
    """The reader's contract for one line: a usable entry, or a ValueError/OSError that can be kept."""
    try:
        entry = parse_program_line(raw, base_dir=folder)
    except (ValueError, OSError) as error:  # pydantic's ValidationError is a ValueError
        record = QuarantinedRecord(stage="t", source="t", location="t:1", reason=describe_error(error))
        record.reason.encode("utf-8")  # storable: Parquet needs UTF-8
        return record
    for setting in entry.settings:
        assert program_setting_refusal(entry.program, setting) is None
        RunRequest(program=entry.program, setting=setting, profile=PROFILE).run_id  # noqa: B018
    json.dumps(entry.program.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
    assert "host secret" not in json.dumps(entry.program.model_dump(mode="json"))
    return entry


def huge_number_line(digits: int, form: str) -> bytes:
    number = {"int": "9" * digits, "float": f"{'9' * digits}e99999", "tiny": f"-0.{'0' * digits}1"}[form]
    return f'{{"language": "python", "source": "1", "origin": {number}}}'.encode()


any_line = st.one_of(
    st.binary(max_size=200),
    json_values.map(encode),
    program_lines.map(encode),
    st.builds(huge_number_line, st.integers(1, 20_000), st.sampled_from(["int", "float", "tiny"])),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=any_line)
def test_any_line_gives_a_usable_entry_or_a_reason(raw: bytes, folder: Path) -> None:
    check(raw, folder)


@EXAMPLES
@given(
    depth=st.integers(min_value=0, max_value=200_000),
    opener=st.sampled_from(["[", '{"a":']),
    where=st.sampled_from(["origin", "files", "settings", "language"]),
)
def test_nesting_of_any_depth_gives_an_entry_or_a_reason(
    depth: int, opener: str, where: str, folder: Path
) -> None:
    closer = "]" if opener == "[" else "}"
    nested = opener * depth + "1" + closer * depth
    raw = f'{{"language": "python", "source": "print(1)", "{where}": {nested}}}'.encode()
    check(raw, folder)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.binary(max_size=60) | program_lines.map(encode), max_size=6))
def test_every_line_of_a_file_is_an_entry_or_a_quarantine_record(lines: list[bytes], folder: Path) -> None:
    lines = [line.replace(b"\n", b" ") for line in lines]
    path = folder / "programs.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    entries, bad = load_program_file(path)
    assert len(entries) + len(bad) == sum(1 for line in lines if line.strip())
    gpp = ExecutionSetting.from_surge_key("g++-C++14--O2")
    for request in plan_requests(with_default_setting(entries, gpp)[0], [PROFILE], Limits(), 1):
        assert request.setting.compiler != "g++" or request.program.language == "cpp"
        assert request.run_id  # every id computes: each text has a UTF-8 form
    for record in bad:
        record.reason.encode("utf-8")
        record.raw.encode("utf-8")
