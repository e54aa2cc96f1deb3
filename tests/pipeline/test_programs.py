from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.errors import InputError
from pipeline.programs import load_program_file, plan_requests
from pipeline.records import EnvironmentProfile, ExecutionSetting, Language, Limits

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
    requests = plan_requests(entries, [EnvironmentProfile(name="a")], Limits(), 1, default)
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
