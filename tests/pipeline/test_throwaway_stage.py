"""A new stage is the files docs/api.md's "Adding a stage" names: a throwaway one, `tally`, written as
those files would be (its options, its stage and result, its command module) and registered where the
how-to says (``api.OPTIONS``, ``cli.COMMANDS``) for the test's length, reaches the CLI (text and --json)
and the checks every stage passes."""

from __future__ import annotations

import argparse
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import api, cli
from pipeline.commands.common import add_store_argument, options_from
from pipeline.observe import Observer, tell
from pipeline.stage_results import StageResult
from pipeline.stages.options import StoreOption


class TallyOptions(StoreOption):
    """`surge tally`: count the table folders of a store."""

    strict: bool = False


class TallySummary(StageResult):
    tables: int


def tally(options: TallyOptions, *, observer: Observer | None = None) -> TallySummary:
    tables = sum(folder.is_dir() for folder in options.store.iterdir()) if options.store.is_dir() else 0
    tell(observer, "tally", "counted", str(tables))
    return TallySummary(tables=tables, exit_code=3 if options.strict and not tables else 0)


def command_module() -> types.ModuleType:
    """pipeline/commands/tally.py, as the how-to writes it."""
    module = types.ModuleType("pipeline.commands.tally")
    module.HELP = "count the tables of a store"
    module.EXAMPLE = "surge tally --store .surge/store"

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        add_store_argument(parser)
        parser.add_argument("--strict", action="store_true", help="exit 3 on a store without tables")

    module.add_arguments = add_arguments
    module.options_of = lambda args: options_from(args, TallyOptions)
    module.STAGE = tally
    module.render = lambda result, options: f"{result.tables} tables in {options.store}"
    return module


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "pipeline.commands.tally", command_module())
    monkeypatch.setitem(cli.COMMANDS, "tally", "pipeline.commands.tally")
    monkeypatch.setitem(api.OPTIONS, "tally", TallyOptions)
    yield


def test_a_new_stage_is_a_command_with_text_json_and_the_exit_rule(
    registered: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    (store / "runs").mkdir(parents=True)
    assert cli.main(["tally", "--store", str(store)]) == 0
    assert capsys.readouterr().out.strip() == f"1 tables in {store}"
    assert cli.main(["tally", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"tables": 1, "exit_code": 0, "failures": []}
    assert cli.main(["tally", "--store", str(tmp_path / "none"), "--strict"]) == 3


def test_a_new_stage_has_its_flags_as_options(registered: None) -> None:
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser = sub.choices["tally"]
    dests = {action.dest for action in parser._actions} - {"help", "json"}
    assert dests == set(api.OPTIONS["tally"].model_fields)
    assert cli.load_command("tally").options_of(parser.parse_args([])) == TallyOptions()
