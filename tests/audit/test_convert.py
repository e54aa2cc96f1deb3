"""Every released sample converts (or is refused with a reason); each subset's rule, checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.audit.convert import convert, convert_all, load_dataset
from pipeline.audit.rows import AuditClass, Conversion, Refusal, Unrunnable
from pipeline.errors import InputError
from pipeline.records import LabelProtocol, Language
from pipeline.subsets.repositories import unpack_repository
from sources.surge_release import ReleasedRecord, parse_record


@pytest.fixture(scope="module")
def released(samples: Path) -> Path:
    return samples / "surge-released"


def _records(path: Path) -> list[ReleasedRecord]:
    records, refusals = load_dataset(path)
    assert refusals == []
    return records


def test_every_sample_subset_converts(released: Path) -> None:
    records = _records(released)
    conversions, unrunnable, refusals = convert_all(records)
    assert len(records) == 24 and refusals == [] and unrunnable == []
    by_subset: dict[str, int] = {}
    for conversion in conversions:
        by_subset[conversion.record.subset] = by_subset.get(conversion.record.subset, 0) + 1
    assert by_subset == {s: 3 for s in ("bg", "cl", "dr", "fl", "ml", "rl", "sc", "tc")}


def test_the_file_names_the_subset_not_the_category_number(released: Path) -> None:
    # cl records share category 1 with ml; a cl record without `difficulty` stays cl (one reader)
    assert {r.subset for r in _records(released / "cl.json")} == {"cl"}
    assert {r.subset for r in _records(released / "ml.json")} == {"ml"}
    raw = json.loads((released / "cl.json").read_text())[0]
    del raw["custom_features"]["difficulty"]
    assert parse_record("cl", 0, "cl.json[0]", raw).subset == "cl"  # type: ignore[union-attr]
    # A file not named after a subset: SURGE's own rule (1 with difficulty is cl, else ml)
    assert parse_record("mixed", 0, "m[0]", raw).subset == "ml"  # type: ignore[union-attr]


def test_bg_follows_surge_app_protocol(released: Path) -> None:
    conversions = [convert(r) for r in _records(released / "bg.json")]
    java, cpp, java_solution = (c for c in conversions if isinstance(c, Conversion))
    assert java.program.files[0].path == "Main.java"
    assert java_solution.program.files[0].path == "Solution.java"
    assert cpp.program.files[0].path == "test.cpp"
    assert cpp.setting.compiler == "g++" and cpp.setting.standard == "c++11"
    assert cpp.program.protocol is LabelProtocol.COMBINED_WITH_PREFIX


def test_dr_setting_comes_from_the_key(released: Path) -> None:
    first = convert(_records(released / "dr.json")[0])
    assert isinstance(first, Conversion)
    assert (first.setting.compiler, first.setting.standard, first.setting.optimization) == (
        "clang++",
        "c++11",
        "O1",
    )
    assert first.program.protocol is LabelProtocol.COMPILE_THEN_RUN


def test_sc_command_becomes_argv_without_a_shell(released: Path) -> None:
    first = convert(_records(released / "sc.json")[0])
    assert isinstance(first, Conversion)
    assert first.program.entry == "heat_eq_x.py"
    assert first.program.argv == ("--L", "93", "--T", "66", "--alpha", "39", "--Nx", "8", "--Nt", "2")
    assert first.plan.recorded_time_s == pytest.approx(0.2254748)
    tc = convert(_records(released / "tc.json")[0])
    assert isinstance(tc, Conversion)
    assert tc.program.argv == ("--vertices", "3", "--positions", "8.39,9.71 0.91,1.16 5.76,1.8")
    assert tc.plan.alternatives == ()  # the parser and a shell agree: nothing ambiguous to try


def test_rl_repository_and_input_file(released: Path) -> None:
    conversion = convert(_records(released / "rl.json")[0])
    assert isinstance(conversion, Conversion)
    program = conversion.program
    assert program.language is Language.CPP  # upstream says "Python"; the files and g++ say C++
    assert program.run_instruction and program.run_instruction.startswith("g++ main.cpp")
    assert [f.path for f in program.files][:3] == ["car.cpp", "car.h", "engine.cpp"]
    assert program.files[-1].path == "input/10.txt"
    assert program.stdin.startswith("5\n2 4 Electric")
    assert conversion.plan.missing == ()


def test_all_three_closing_tags() -> None:
    files, input_file = unpack_repository(
        "Here is the code repository:a.py:<start_file>A<endfile>b.py:<start_file>B<enfile>"
        "c.py:<start_file>C<end_file>, and the input file is:./in/1.txt:<start_file>7<endfile>"
    )
    assert [(f.path, f.content) for f in files] == [("a.py", "A"), ("b.py", "B"), ("c.py", "C")]
    assert input_file is not None and (input_file.path, input_file.content) == ("in/1.txt", "7")


def _record(subset: str, question: str, **features: object) -> ReleasedRecord:
    return ReleasedRecord(
        subset=subset, index=0, location="t[0]", question=question, gt="", custom_features=features
    )


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (_record("tc", "no blocks here"), "no ```code``` block"),
        (_record("sc", "code:```\nx=1\n```\ncommand:```\nls -l\n```"), "does not run a python script"),
        (_record("dr", "int main(){}", key="icc-C++11--O2"), "not a SURGE dr setting key"),
        (_record("ml", "print(1)"), "no custom_features.language"),
        (_record("zz", "x"), "unknown subset"),
    ],
)
def test_bad_records_are_refused_with_a_reason(record: ReleasedRecord, reason: str) -> None:
    outcome = convert(record)
    assert isinstance(outcome, Refusal) and reason in outcome.reason


def test_rl_without_anything_to_infer_is_a_row_not_a_refusal() -> None:
    outcome = convert(_record("rl", "```\\documentclass{article}```", repo="PlotNeuralNet"))
    assert isinstance(outcome, Unrunnable)
    assert outcome.audit_class is AuditClass.NO_RUN_INSTRUCTION and "run_instruction" in outcome.reason


def test_julia_converts_and_is_left_to_the_sandbox() -> None:
    outcome = convert(
        _record("ml", 'println("hi")', language="Julia").model_copy(update={"language": Language.JULIA})
    )
    assert isinstance(outcome, Conversion) and outcome.program.language is Language.JULIA


def test_missing_dataset_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_dataset(tmp_path / "nope.json")
    (tmp_path / "ml.json").write_text(json.dumps({"not": "a list"}))
    with pytest.raises(InputError, match="expected a JSON list"):
        load_dataset(tmp_path / "ml.json")


def test_malformed_entries_are_refused_not_fatal(tmp_path: Path) -> None:
    good = {
        "custom_categoey": 1,
        "custom_features": {"language": "Python"},
        "question": "print(1)",
        "gt": "1",
    }
    cobol = {**good, "custom_features": {"language": "Cobol"}}
    (tmp_path / "ml.json").write_text(json.dumps([good, "oops", {"gt": "2"}, cobol]))
    records, refusals = load_dataset(tmp_path)
    conversions, _, _ = convert_all(records)
    assert len(conversions) == 1
    reasons = {r.location.rsplit("/", 1)[-1]: r.reason for r in refusals}
    assert set(reasons) == {"ml.json[1]", "ml.json[2]", "ml.json[3]"}
    assert "expected a JSON object" in reasons["ml.json[1]"] and "question" in reasons["ml.json[2]"]
    assert reasons["ml.json[3]"].startswith("unknown language 'Cobol'")
    assert {r.subset for r in refusals} == {"ml"}


PARSER = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--A", type=str, help="rows separated by ';'")
parser.add_argument("--shift", type=float, default=0.0)
parser.add_argument("--verbose", action="store_true")
parser.add_argument("--point", nargs=2, type=float)
parser.add_argument("--xs", nargs="+", type=int)
"""


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        # tc's linear-algebra shape: the matrix was one argument, released without quotes
        ("python qr.py --A 91 53 44 ;36 54 67 ;7 6 86 ", ["--A", "91 53 44 ;36 54 67 ;7 6 86"]),
        (
            "python qr.py --verbose --A 1 2 ;3 4 --shift -0.5",
            ["--verbose", "--A", "1 2 ;3 4", "--shift", "-0.5"],
        ),
        ("python qr.py --A=1 2 --xs 1 2 3", ["--A=1", "2", "--xs", "1", "2", "3"]),
        ("python qr.py --point -1 2 --A '1 2'", ["--point", "-1", "2", "--A", "1 2"]),
        ("python qr.py --A 1\n2 ;3 4", ["--A", "1\n2 ;3 4"]),  # a multi-line value keeps its newline
    ],
)
def test_argv_rebuilt_from_the_scripts_parser(command: str, argv: list[str]) -> None:
    from pipeline.subsets.scripts import PARSER_VARIANT, command_argvs

    name, rebuilt = command_argvs(PARSER, command)[0]
    assert (name, rebuilt) == (PARSER_VARIANT, ["python", "qr.py", *argv])
