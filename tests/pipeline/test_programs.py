from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from pipeline.errors import InputError
from pipeline.programs import load_program_file, plan_requests, with_default_setting
from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Language,
    Limits,
    Program,
    QuarantinedRecord,
    RunRequest,
)
from sandboxes.languages import program_setting_refusal

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "programs.jsonl"


def write_lines(path: Path, lines: list[str | bytes]) -> Path:
    with path.open("wb") as out:
        for line in lines:
            out.write((line.encode() if isinstance(line, str) else line) + b"\n")
    return path


def test_bad_lines_are_quarantined_with_line_and_reason_and_the_rest_loads(tmp_path: Path) -> None:
    (tmp_path / "hello.c").write_text("int main(void){return 0;}\n")
    path = write_lines(
        tmp_path / "programs.jsonl",
        [
            json.dumps({"language": "python", "source": "print(1)"}),
            '{"language": "python", "source": ',  # truncated JSON
            json.dumps({"language": "cobol", "source": "DISPLAY 'HI'."}),
            json.dumps({"language": "c", "path": "missing.c"}),
            json.dumps({"language": "c", "path": "hello.c"}),
            json.dumps({"source": "print(2)"}),
            b'{"language": "python", "source": "print(\xff)"}',
            json.dumps({"language": "cpp", "source": "int main(){}", "settings": ["g++-C++14--O2", "bogus"]}),
            "",
            json.dumps([1, 2]),
        ],
    )
    entries, bad = load_program_file(path)
    assert [e.program.language for e in entries] == [Language.PYTHON, Language.C]
    reasons = {q.location.rsplit(":", 1)[1]: q.reason for q in bad}
    assert set(reasons) == {"2", "3", "4", "6", "7", "8", "10"}
    assert reasons["2"].startswith("not valid JSON")
    assert "unknown language 'cobol'" in reasons["3"]
    assert reasons["4"].startswith("file not found") and "missing.c" in reasons["4"]
    assert reasons["6"] == "missing field 'language'"
    assert reasons["7"].startswith("line is not UTF-8")
    assert "not a SURGE dr setting key" in reasons["8"]
    assert "must be a JSON object" in reasons["10"]


def test_missing_programs_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such programs file"):
        load_program_file(tmp_path / "nope.jsonl")


def test_settings_multiply_runs_and_duplicates_collapse(tmp_path: Path) -> None:
    line = json.dumps(
        {"language": "cpp", "source": "int main(){}", "settings": ["g++-C++11--O0", "g++-C++17--O2"]}
    )
    entries, _ = load_program_file(write_lines(tmp_path / "p.jsonl", [line, line]))
    profiles = [EnvironmentProfile(name="a"), EnvironmentProfile(name="b")]
    requests = plan_requests(entries, profiles, Limits(), repeats=1)
    assert len(requests) == 4  # 2 settings x 2 profiles; the duplicate line adds nothing
    assert {r.setting.optimization for r in requests} == {"O0", "O2"}


def test_default_setting_applies_only_to_lines_without_one(tmp_path: Path) -> None:
    lines = [
        json.dumps({"language": "cpp", "source": "int main(){}"}),
        json.dumps({"language": "cpp", "source": "int main(){return 0;}", "settings": ["clang++-C++11--O1"]}),
    ]
    entries, _ = load_program_file(write_lines(tmp_path / "p.jsonl", lines))
    default = ExecutionSetting.from_surge_key("g++-C++14--O2")
    entries, _ = with_default_setting(entries, default)
    requests = plan_requests(entries, [EnvironmentProfile(name="a")], Limits(), 1)
    assert sorted(r.setting.compiler or "" for r in requests) == ["clang++", "g++"]


def test_the_bundled_demo_programs_all_load() -> None:
    entries, bad = load_program_file(EXAMPLES)
    assert bad == []
    assert {e.program.language for e in entries} >= {
        Language.C,
        Language.CPP,
        Language.PYTHON,
        Language.JAVA,
        Language.JAVASCRIPT,
        Language.RUST,
        Language.CSHARP,
    }


# -- settings are a fact of a toolchain --------------------------------------------------------


def test_a_line_setting_its_language_cannot_take_is_quarantined_with_the_reason(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "p.jsonl",
        [
            json.dumps({"language": "python", "source": "print(1)", "settings": ["g++-C++14--O2"]}),
            json.dumps({"language": "c", "source": "int main(void){return 0;}", "settings": "g++-C++14--O2"}),
            json.dumps({"language": "java", "source": "class A{}", "settings": [{"optimization": "O2"}]}),
            json.dumps({"language": "cpp", "source": "int main(){}", "settings": [{"standard": "c++99"}]}),
            json.dumps({"language": "cpp", "source": "int main(){}", "settings": ["clang++-C++11--O1"]}),
            json.dumps(
                {"language": "c", "source": "int main(void){}", "settings": [{"compiler": "clang-14"}]}
            ),
            json.dumps(
                {"language": "cpp", "source": "", "run_instruction": "make", "settings": ["g++-C++14--O2"]}
            ),
        ],
    )
    entries, bad = load_program_file(path)
    reasons = {q.location.rsplit(":", 1)[1]: q.reason for q in bad}
    assert set(reasons) == {"1", "2", "3", "4", "7"}
    assert reasons["1"] == (
        "setting 'g++-C++14--O2' cannot apply: Python cannot be built by 'g++' "
        "(Python takes no compiler setting)"
    )
    assert "C cannot be built by 'g++' (C takes gcc, clang)" in reasons["2"]
    assert "Java takes no optimisation level ('O2')" in reasons["3"]
    assert "C++ has no standard 'c++99'" in reasons["4"]
    assert "built by its own run_instruction, which no setting reaches" in reasons["7"]
    assert [(e.program.language, e.settings[0].compiler) for e in entries] == [
        (Language.CPP, "clang++"),
        (Language.C, "clang-14"),
    ]


def test_a_command_line_setting_reaches_only_the_programs_that_take_it() -> None:
    entries, _ = load_program_file(EXAMPLES)
    key = ExecutionSetting.from_surge_key("g++-C++14--O2")
    applied, _ = with_default_setting(entries, key)
    requests = plan_requests(applied, [EnvironmentProfile(name="a")], Limits(), 1)
    own = {e.program.program_id for e in entries if e.settings != (ExecutionSetting(),)}
    settings: dict[str, set[ExecutionSetting]] = {}
    for planned in requests:
        if planned.program.program_id not in own:
            builds_itself = " (run_instruction)" if planned.program.run_instruction else ""
            settings.setdefault(planned.program.language.value + builds_itself, set()).add(planned.setting)
    assert settings.pop("cpp") == {key}
    assert set(settings) >= {"c", "python", "java", "javascript", "rust", "csharp", "cpp (run_instruction)"}
    assert all(found == {ExecutionSetting()} for found in settings.values()), settings
    _, reach = with_default_setting(entries, key)
    assert (reach.applied, reach.not_applied, reach.own_settings) == (1, 11, 1)
    assert reach.not_applied_to == {
        "c": 1,
        "cpp (run_instruction)": 1,
        "csharp": 1,
        "java": 1,
        "javascript": 1,
        "python": 5,
        "rust": 1,
    }


def test_a_run_request_never_pairs_a_program_with_another_languages_compiler() -> None:
    """The request is a record and validates; the registry refuses it (here, where a programs file's
    lines enter, and in the sandbox before a batch starts: tests/sandboxes/test_refusals.py)."""
    request = RunRequest(
        program=Program.single("python", "print(1)"),
        setting=ExecutionSetting.from_surge_key("g++-C++14--O2"),
        profile=EnvironmentProfile(name="a"),
    )
    refusal = program_setting_refusal(request.program, request.setting)
    assert refusal is not None and refusal.startswith("Python cannot be built by 'g++'")


# -- a program line names only files it may ------------------------------------------------------


def test_the_path_shorthand_reads_only_regular_files_under_the_jsonl_folder(tmp_path: Path) -> None:
    folder, outside = tmp_path / "programs", tmp_path / "secret.py"
    folder.mkdir()
    outside.write_text("print('the host secret')\n")
    (folder / "sub").mkdir()
    (folder / "sub" / "ok.py").write_bytes(b"print('ok')\r\n")
    (folder / "escape.py").symlink_to(outside)
    (folder / "inside.py").symlink_to(folder / "sub" / "ok.py")
    (folder / "loop.py").symlink_to(folder / "loop.py")
    names = [
        "/etc/shadow",
        "/proc/self/environ",
        "../secret.py",
        "escape.py",
        "loop.py",
        "sub",
        "sub/ok.py",
        "inside.py",
        "sub/../sub/ok.py",
    ]
    lines = [json.dumps({"language": "python", "path": name}) for name in names]
    entries, bad = load_program_file(write_lines(folder / "p.jsonl", lines))
    reasons = {int(q.location.rsplit(":", 1)[1]): q.reason for q in bad}
    assert sorted(reasons) == [1, 2, 3, 4, 5, 6]
    for number in (1, 2, 3, 4):
        assert "is outside the programs file's folder" in reasons[number], reasons[number]
    assert "loop of links" in reasons[5]
    assert reasons[6].startswith("file not found")
    assert [e.program.files[0].content for e in entries] == ["print('ok')\r\n"] * 3  # read as written
    assert "the host secret" not in json.dumps([q.raw for q in bad]) + json.dumps([q.reason for q in bad])


@pytest.mark.parametrize(
    ("files", "entry", "reason"),
    [
        ([("ma\x00in.py", "print(1)")], None, "NUL byte"),
        ([("main.py", "print(1)"), ("main.py/x", "")], None, "'main.py' is both a file and a folder"),
        ([("a/b.py", ""), ("a", "print(1)")], None, "'a' is both a file and a folder"),
        ([("main.py", "print(1)"), ("main.py", "print(2)")], None, "two files have the path 'main.py'"),
        ([("main.py", "print(1)")], "other.py", "entry 'other.py' is not one of the program's files"),
        ([("src//main.py", "print(1)")], None, "empty or '.' part"),
        ([("./main.py", "print(1)")], None, "empty or '.' part"),
        ([("x" * 256 + ".py", "print(1)")], None, "longer than 255 bytes"),
        ([("main.py", "print('\ud800')")], None, "lone surrogate"),
    ],
)
def test_program_files_that_cannot_be_placed_once_under_app_are_refused(
    files: list[tuple[str, str]], entry: str | None, reason: str
) -> None:
    data = {"language": "python", "files": [{"path": p, "content": c} for p, c in files], "entry": entry}
    with pytest.raises(ValidationError, match=re.escape(reason)):
        Program.model_validate(data)


def test_bad_program_files_are_bad_lines_and_the_rest_loads(tmp_path: Path) -> None:
    good = {"language": "python", "source": "print(1)"}
    lines = [
        json.dumps({"language": "python", "files": [{"path": "main.py", "content": ""}], "entry": "nope.py"}),
        json.dumps({"language": "python", "files": [{"path": "a\u0000b", "content": ""}]}),
        json.dumps(
            {
                "language": "python",
                "files": [{"path": "m.py", "content": ""}, {"path": "m.py/x", "content": ""}],
            }
        ),
        json.dumps(
            {
                "language": "python",
                "files": [{"path": "m.py", "content": "1"}, {"path": "m.py", "content": "2"}],
            }
        ),
        '{"language": "python", "source": "print(1)", "origin": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"language": "python", "source": "print(\\ud800)"}',
        json.dumps({"language": "python", "source": "print(1)", "argv": ["a\u0000"]}),
        json.dumps({"language": "python", "source": 5}),
        json.dumps(good),
    ]
    entries, bad = load_program_file(write_lines(tmp_path / "p.jsonl", lines))
    reasons = [q.reason for q in bad]
    assert len(entries) == 1 and entries[0].program.files[0].content == "print(1)"
    assert len(reasons) == 8, reasons
    for expected, reason in zip(
        [
            "entry 'nope.py' is not one of",
            "NUL byte",
            "'m.py' is both a file and a folder",
            "two files have the path 'm.py'",
            "JSON nested too deeply",
            "lone surrogate",
            "argv or run_instruction holds a NUL byte",
            "valid string",
        ],
        reasons,
        strict=True,
    ):
        assert expected in reason, reasons
    for q in bad:  # every bad line can be kept: the store needs UTF-8
        q.reason.encode("utf-8")
        q.raw.encode("utf-8")


def test_a_quarantine_record_keeps_a_lone_surrogate_as_its_escape_and_is_stored(tmp_path: Path) -> None:
    from pipeline.store import Store

    record = QuarantinedRecord(stage="audit", source="ml", location="ml.json[0]", reason="r", raw="x\ud800y")
    assert record.raw == "x\\ud800y"
    store = Store(tmp_path / "store")
    store.quarantine.append_new([record])
    assert [q.raw for q in store.quarantine.records()] == ["x\\ud800y"]
