from __future__ import annotations

import pytest
from pydantic import ValidationError

from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    LabelProtocol,
    Language,
    PhaseResult,
    Program,
    ProgramFile,
    RunRequest,
    RunResult,
    Verdict,
    compose_label,
)
from sandboxes.languages import parse_language, program_setting_refusal
from tests.factories import make_result


def test_same_program_setting_and_profile_give_the_same_run_id() -> None:
    profile = EnvironmentProfile(name="default")
    first = RunRequest(program=Program.single("cpp", "int main(){}"), profile=profile)
    again = RunRequest(
        program=Program.single("cpp", "int main(){}"), profile=EnvironmentProfile(name="default")
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
    assert f"{Language.JAVA}" == "java" and Language("cobol") == "cobol"  # open: the registry knows
    program = Program.single(Language.RUST, "fn main() {}")
    assert program.model_dump()["language"] == "rust" and type(program.model_dump()["language"]) is str
    assert Program(**program.model_dump(exclude={"program_id"})).language is Language.RUST
    # A record is an open description; which languages run is the registry's to say where programs
    # enter and again before a sandbox starts (tests/sandboxes/test_refusals.py).
    cobol = Program(language="cobol", files=({"path": "main.cob", "content": ""},))
    refusal = program_setting_refusal(cobol, ExecutionSetting())
    assert refusal is not None and refusal.startswith("unknown language 'cobol'")


def test_records_are_frozen_and_reject_unknown_fields() -> None:
    program = Program.single("python", "print(1)")
    with pytest.raises(ValidationError):
        program.argv = ("x",)  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Program.model_validate(
            {"language": "python", "files": [{"path": "a.py", "content": ""}], "colour": 1}
        )


def test_compose_label_protocols() -> None:
    warn = PhaseResult(stdout="", stderr="w: careful\n", verdict=Verdict.OK)
    fail = PhaseResult(stderr="e: broken\n", exit_code=1, verdict=Verdict.COMPILE_ERROR)
    run = PhaseResult(stdout="out\n", stderr="err\n", verdict=Verdict.OK)
    assert compose_label(LabelProtocol.STDOUT, warn, run) == "out\n"
    assert compose_label(LabelProtocol.COMPILE_THEN_RUN, warn, run) == "w: careful\nout\nerr\n"
    assert compose_label(LabelProtocol.COMBINED_WITH_PREFIX, fail, None) == "Compilation Error: e: broken\n"
    assert compose_label(LabelProtocol.COMBINED_WITH_PREFIX, warn, run) == "out\nerr\n"
    checked = PhaseResult(stdout='{"pass": false}', verdict=Verdict.COMPILE_ERROR)
    timed_out = PhaseResult(stdout="partial", verdict=Verdict.WALL_TIME_LIMIT)
    assert compose_label(LabelProtocol.PROOF_CHECK, checked, None) == '{"pass": false}'
    assert compose_label(LabelProtocol.PROOF_CHECK, timed_out, None) == ""


def test_the_label_is_composed_from_the_phases_by_the_stored_protocol() -> None:
    compile = PhaseResult(stderr="w: careful\n", verdict=Verdict.OK)
    result = make_result("print(1)", "1\n").model_copy(
        update={"compile": compile, "protocol": LabelProtocol.COMPILE_THEN_RUN}
    )
    assert result.label == "w: careful\n1\n"
    assert make_result("print(1)", "1\n").label == "1\n"  # the default protocol: stdout
    with pytest.raises(ValidationError):  # a label is derived, never handed in
        RunResult.model_validate({**make_result().model_dump(exclude={"label"}), "label": "made up"})
