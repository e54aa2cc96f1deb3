from __future__ import annotations

import pytest
from pydantic import ValidationError

from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Language,
    Program,
    ProgramFile,
    RunRequest,
)
from sandboxes.languages import parse_language


def test_same_program_setting_and_profile_give_the_same_run_id() -> None:
    profile = EnvironmentProfile(name="default")
    first = RunRequest(program=Program.single("cpp", "int main(){}"), profile=profile)
    again = RunRequest(
        program=Program.single("c++", "int main(){}"), profile=EnvironmentProfile(name="default")
    )
    assert first.run_id == again.run_id


@pytest.mark.parametrize(
    "change",
    [
        {"program": Program.single("cpp", "int main(){return 1;}")},
        {"setting": ExecutionSetting(optimization="O2")},
        {"profile": EnvironmentProfile(name="default", locale="C")},
    ],
)
def test_anything_that_changes_the_result_changes_the_run_id(change: dict) -> None:
    base = {"program": Program.single("cpp", "int main(){}"), "profile": EnvironmentProfile(name="default")}
    assert RunRequest(**base).run_id != RunRequest(**{**base, **change}).run_id


def test_origin_is_not_part_of_the_program_id() -> None:
    plain = Program.single("python", "print(1)")
    tagged = Program.single("python", "print(1)", origin={"subset": "ml", "index": "3"})
    assert plain.program_id == tagged.program_id


def test_surge_dr_keys_parse_into_settings() -> None:
    setting = ExecutionSetting.from_surge_key("clang++-C++11--O1")
    assert (setting.compiler, setting.standard, setting.optimization) == ("clang++", "c++11", "O1")
    assert ExecutionSetting.from_surge_key("g++-C++03--Os").standard == "c++03"
    with pytest.raises(ValueError, match="not a SURGE dr setting key"):
        ExecutionSetting.from_surge_key("g++ -O2")


def test_file_paths_must_stay_inside_app() -> None:
    with pytest.raises(ValidationError, match="stay inside /app"):
        ProgramFile(path="../etc/passwd", content="")
    with pytest.raises(ValidationError, match="stay inside /app"):
        ProgramFile(path="/etc/passwd", content="")
    assert ProgramFile(path="src/lib.rs", content="").path == "src/lib.rs"


def test_language_aliases_and_unknown_names() -> None:
    assert parse_language("C#") is Language.CSHARP
    assert parse_language("python3") is Language.PYTHON
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        parse_language("cobol")


def test_language_is_an_open_string_type_with_interned_constants() -> None:
    assert Language("cpp") is Language.CPP and Language.CPP == "cpp" and Language.CPP.value == "cpp"
    assert f"{Language.JAVA}" == "java" and Language("go") == "go"  # open: the registry says what is known
    program = Program.single(Language.RUST, "fn main() {}")
    assert program.model_dump()["language"] == "rust" and type(program.model_dump()["language"]) is str
    assert Program(**program.model_dump(exclude={"program_id"})).language is Language.RUST
    with pytest.raises(ValidationError, match="unknown language 'go'"):
        Program(language="go", files=({"path": "main.go", "content": ""},))


def test_records_are_frozen_and_reject_unknown_fields() -> None:
    program = Program.single("python", "print(1)")
    with pytest.raises(ValidationError):
        program.argv = ("x",)  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Program.model_validate(
            {"language": "python", "files": [{"path": "a.py", "content": ""}], "colour": 1}
        )
