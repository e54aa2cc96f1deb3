"""`surge run --setting` end to end (real bwrap): the setting is a fact of a toolchain, so on the bundled
mixed-language programs it builds the C++ ones with it and runs every other program as usual."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.records import ExecutionSetting, RunResult
from pipeline.store import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "programs.jsonl"
KEY = "g++-C++14--O2"
# language -> the tool that must start its compile (compiled) or its run (interpreted) phase
OWN_TOOL = {
    "c": "gcc",
    "java": "javac",
    "rust": "rustc",
    "csharp": "mcs",
    "python": "python3",
    "javascript": "node",
}


def first_tool(result: RunResult) -> str:
    phase = result.compile if result.compile is not None and result.compile.command else result.run
    assert phase is not None and phase.command, result
    return Path(phase.command[0]).name


@pytest.mark.slow
def test_a_gpp_setting_builds_the_cpp_programs_with_gpp_and_runs_the_others_as_usual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    store = tmp_path / "store"
    code = main(["run", str(EXAMPLES), "--store", str(store), "--setting", KEY, "--cpu-s", "1", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0, summary
    assert summary["setting"] == {
        "key": KEY,
        "applied": 1,
        "not_applied": 11,
        "not_applied_to": {
            "c": 1,
            "cpp (run_instruction)": 1,
            "csharp": 1,
            "java": 1,
            "javascript": 1,
            "python": 5,
            "rust": 1,
        },
        "own_settings": 1,
    }
    assert summary["written"] == 15 and summary["sandbox_errors"] == 0

    by_name: dict[str, list[RunResult]] = {}
    for result in Store(store).runs.records():
        by_name.setdefault(result.origin["name"], []).append(result)
    (bg,) = by_name.pop("cpp-compile-error-bg-style")
    assert bg.setting == ExecutionSetting.from_surge_key(KEY)
    assert bg.compile is not None and bg.compile.command[:3] == ("g++", "-std=c++14", "-O2")
    assert bg.verdict == "compile_error" and "test.cpp:4:5: error:" in bg.compile.stderr  # dr's relative name
    assert sorted(r.setting.compiler or "" for r in by_name.pop("cpp-accumulate-three-settings")) == [
        "clang++",
        "g++",
        "g++",
    ]  # its own settings
    (repository,) = by_name.pop("cpp-repository-run-instruction")
    assert repository.setting == ExecutionSetting() and repository.label == "hello, repository\n"
    for name, (result,) in by_name.items():
        assert result.setting == ExecutionSetting(), name
        tool = OWN_TOOL[result.language.value]
        if shutil.which(tool) is None:
            assert result.verdict == "toolchain_missing", name
            continue
        assert first_tool(result) == tool, (name, result.compile, result.run)
        assert result.verdict != "compile_error", (name, result.compile)
    assert by_name["python-stdin"][0].label == "9 quick\n"
    assert by_name["c-sum-of-squares"][0].label == "385\n"
