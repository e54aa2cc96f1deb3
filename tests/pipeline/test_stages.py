"""The stages are library functions: typed options in, a typed result out, nothing for display below the
CLI, and one exit rule for every result."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
from pathlib import Path

import pytest

import surge
from pipeline import api
from pipeline.observe import PROGRESS, StageEvent
from pipeline.records import QuarantinedRecord
from pipeline.stage_results import FAILED_EXIT_CODE, Failure, StageResult
from pipeline.stages.options import Options, StatsOptions
from pipeline.stages.stats import StatsSummary, stats
from pipeline.store import Store

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = [ROOT / "pipeline" / "api.py", *sorted((ROOT / "pipeline" / "stages").glob("*.py"))]
# What only the CLI may know: flags, terminals, and the CLI itself.
CLI_ONLY = ("argparse", "rich", "pipeline.cli", "pipeline.commands")
# Every stage of the API, but the audit: its summary is the audit's own model (pipeline/audit/summary.py),
# not yet a StageResult.
STAGES = [name for name in api.OPTIONS if name != "audit"]


def imports_of(path: Path) -> set[str]:
    """Every module a file imports, inside functions as well."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", LIBRARY, ids=lambda path: path.name)
def test_nothing_below_the_cli_knows_flags_terminals_or_the_cli(path: Path) -> None:
    assert not {name for name in imports_of(path) if cli_only(name)}


def cli_only(module: str) -> bool:
    return any(module == top or module.startswith(top + ".") for top in CLI_ONLY)


def test_the_check_sees_a_command_module_for_what_it_is() -> None:
    assert {"argparse", "pipeline.commands.common"} <= imports_of(ROOT / "pipeline" / "commands" / "run.py")
    assert cli_only("pipeline.commands.common") and cli_only("rich.table") and not cli_only("richer")


@pytest.mark.parametrize("name", STAGES)
def test_each_stage_takes_typed_options_and_returns_a_typed_result(name: str) -> None:
    stage = getattr(importlib.import_module(f"pipeline.stages.{name}"), name)
    signature = inspect.signature(stage, eval_str=True)
    options, observer = signature.parameters.values()
    assert issubclass(options.annotation, Options) and observer.kind is inspect.Parameter.KEYWORD_ONLY
    returned = signature.return_annotation
    results = getattr(returned, "__args__", (returned,))  # review: one result type per action
    assert all(issubclass(result, StageResult) for result in results)
    assert options.annotation is api.OPTIONS[name]
    assert getattr(surge, name) is getattr(api, name) and name in api.__all__


def test_a_failure_of_ours_makes_the_exit_code_one_whatever_the_stages_own() -> None:
    done_but = StageResult(exit_code=3)
    failed = StageResult(exit_code=3, failures=[Failure(reason="a batch failed", fix="run again")])
    assert (done_but.exit_code, failed.exit_code) == (3, FAILED_EXIT_CODE)
    assert not failed.ok and StageResult().ok


class Recorder:
    def __init__(self) -> None:
        self.events: list[StageEvent] = []

    def notify(self, event: StageEvent) -> None:
        self.events.append(event)


class Broken:
    def notify(self, event: StageEvent) -> None:
        raise RuntimeError("a display that fails")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store holding one quarantined record."""
    bad = QuarantinedRecord(stage="load-programs", source="p.jsonl", location="p.jsonl:1", reason="not JSON")
    Store(tmp_path / "store").quarantine.append_new([bad])
    return tmp_path / "store"


def test_a_stage_draws_nothing_itself_and_tells_an_observer(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = stats(StatsOptions(store=store))
    assert summary.quarantined_by_stage == {"load-programs": 1}
    assert capsys.readouterr() == ("", "")
    recorder = Recorder()
    assert stats(StatsOptions(store=store), observer=recorder) == summary
    assert [event.stage for event in recorder.events] == ["stats"]
    assert stats(StatsOptions(store=store), observer=Broken()) == summary


@pytest.mark.slow
def test_a_flows_counts_reach_the_callers_observer_and_nothing_is_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], require_bwrap: None
) -> None:
    """The run's flow counts its batches and runs into the observer its stage was called with (through
    Prefect's flow and task threads); the library prints no bar: the CLI's observer draws one."""
    programs = tmp_path / "programs.jsonl"
    programs.write_text(
        "".join(json.dumps({"language": "python", "source": f"print({n})"}) + "\n" for n in range(3))
    )
    recorder = Recorder()
    ran = api.run(programs=programs, store=tmp_path / "store", observer=recorder)
    counted = [event for event in recorder.events if event.step == PROGRESS]
    assert ran.written == 3 and counted and counted[-1].finished and counted[-1].share == 1.0
    assert [tally.text() for tally in counted[-1].tallies] == [
        f"batches {ran.batches}/{ran.batches}",
        "runs 3/3",
    ]
    assert "runs 3/3" not in capsys.readouterr().err


def test_a_result_is_the_data_of_the_json_and_nothing_else(store: Path) -> None:
    summary = api.stats(store=store)
    assert isinstance(summary, StatsSummary)
    data = json.loads(summary.model_dump_json())
    assert not [key for key in data if key.startswith("_")] and data["exit_code"] == 0
    assert StatsSummary.model_validate(data) == summary


def test_the_audit_is_reached_from_the_library_and_refuses_a_missing_dataset(tmp_path: Path) -> None:
    with pytest.raises(surge.SurgeError, match="no-such-dataset"):
        surge.audit(dataset=tmp_path / "no-such-dataset", store=tmp_path / "store", limit=1)
