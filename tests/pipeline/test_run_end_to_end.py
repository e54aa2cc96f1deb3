"""`surge run` end to end: bundled programs -> Prefect flow -> bwrap -> Parquet -> stats; then resume."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.store import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "programs.jsonl"

# demo program name -> (tool it needs, expected verdict, expected label)
EXPECTED = {
    "c-sum-of-squares": ("gcc", "ok", "385\n"),
    "cpp-compile-error-bg-style": ("g++", "compile_error", None),
    "python-stdin": ("python3", "ok", "9 quick\n"),
    "python-argv-without-shell": ("python3", "ok", "two words 4950\n"),
    "python-runtime-error": ("python3", "runtime_error", None),
    "python-busy-loop-cpu-limit": ("python3", "cpu_time_limit", None),
    "java-reverse": ("javac", "ok", "egrus\n"),
    "javascript-sort": ("node", "ok", "[1,2,3]\n"),
    "rust-factorial": ("rustc", "ok", "2432902008176640000\n"),
    "csharp-join": ("mcs", "ok", "1,2,3\n"),
    "cpp-repository-run-instruction": ("g++", "ok", "hello, repository\n"),
}


def surge_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


@pytest.mark.slow
def test_surge_run_executes_stores_summarises_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    store = tmp_path / "store"
    first = surge_json(capsys, "run", str(EXAMPLES), "--store", str(store), "--repeats", "2", "--cpu-s", "1")
    assert first["programs"] == 13 and first["planned_runs"] == 15  # one program runs under 3 settings
    assert first["written"] == 15 and first["bad_lines"] == [] and first["sandbox_errors"] == 0

    by_name: dict[str, list] = {}
    for result in Store(store).runs.records():
        by_name.setdefault(result.origin["name"], []).append(result)
    for name, (tool, verdict, label) in EXPECTED.items():
        (result,) = by_name[name]
        if shutil.which(tool) is None:
            assert result.verdict == "toolchain_missing" and tool in (result.compile or result.run).detail
            continue
        assert result.verdict == verdict, (name, result)
        if label is not None:
            assert result.label == label, name
    if shutil.which("clang++"):
        settings = by_name["cpp-accumulate-three-settings"]
        assert sorted(r.setting.compiler for r in settings) == ["clang++", "g++", "g++"]
        assert {r.label for r in settings} == {"1000\n"}
    assert by_name["cpp-compile-error-bg-style"][0].label.startswith("Compilation Error: ")
    assert by_name["python-nondeterministic"][0].distinct_outputs == 2  # random.random() twice

    again = surge_json(capsys, "run", str(EXAMPLES), "--store", str(store), "--repeats", "2", "--cpu-s", "1")
    assert again["already_stored"] == 15 and again["written"] == 0

    stats = surge_json(capsys, "stats", "--store", str(store))
    assert stats["runs"] == 15 and stats["nondeterministic"] == 1
    assert stats["by_language"]["python"]["cpu_time_limit"] == 1
    assert 0 < stats["cpu_s_percentiles"]["p50"] <= stats["cpu_s_percentiles"]["max"]


def test_surge_run_reports_bad_lines_and_runs_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    programs = tmp_path / "programs.jsonl"
    programs.write_text(
        json.dumps({"language": "python", "source": "print('fine')"})
        + "\n"
        + json.dumps({"language": "brainfuck", "source": "+."})
        + "\n"
        + "{not json\n"
    )
    summary = surge_json(capsys, "run", str(programs), "--store", str(tmp_path / "store"))
    assert summary["written"] == 1
    assert [bad["location"].rsplit(":", 1)[1] for bad in summary["bad_lines"]] == ["2", "3"]
    assert "unknown language 'brainfuck'" in summary["bad_lines"][0]["reason"]
    assert Store(tmp_path / "store").quarantine.count() == 2
    assert main(["run", str(programs), "--store", str(tmp_path / "store"), "--strict", "--json"]) == 3


@pytest.mark.slow
def test_an_interrupted_run_keeps_finished_batches_and_the_rerun_completes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    programs = tmp_path / "programs.jsonl"
    lines = [{"language": "python", "source": f"import time; time.sleep(0.2); print({i})"} for i in range(24)]
    programs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    store = tmp_path / "store"
    argv = [sys.executable, "-m", "pipeline.cli", "run", str(programs), "--store", str(store)]
    running = subprocess.Popen(
        [*argv, "--batch-size", "2", "--workers", "1"], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not list((store / "runs").glob("part-*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.1)
    running.send_signal(signal.SIGINT)
    _, stderr = running.communicate(timeout=60)
    assert running.returncode == 130, stderr
    assert "finished rows are kept" in stderr
    kept = Store(store).runs.count()
    assert 0 < kept < len(lines)

    summary = surge_json(capsys, "run", str(programs), "--store", str(store))
    assert summary["already_stored"] == kept and summary["written"] == len(lines) - kept
    labels = sorted(int(result.label) for result in Store(store).runs.records())
    assert labels == list(range(len(lines)))
