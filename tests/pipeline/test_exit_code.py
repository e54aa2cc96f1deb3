"""A command's summary says the exit code its process exits with, in --json and in text."""

from __future__ import annotations

import argparse
import json

import pytest

from pipeline.cli import FAILED_EXIT_CODE, finish

FAILED_BATCH = {"reason": "Prefect's local API did not start", "fix": "see its log"}


def test_failures_make_the_json_summary_say_the_exit_code_of_the_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary = {"written": 2, "failures": [FAILED_BATCH], "exit_code": 0}
    code = finish(argparse.Namespace(command="run", json=True), summary)
    printed = json.loads(capsys.readouterr().out)
    assert code == FAILED_EXIT_CODE and printed["exit_code"] == code


def test_failures_make_the_text_summary_say_the_exit_code_of_the_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary = {"written": 2, "failures": [FAILED_BATCH], "exit_code": 0, "_text": "rows written 2"}
    code = finish(argparse.Namespace(command="run", json=False), summary)
    out = capsys.readouterr().out
    assert code == FAILED_EXIT_CODE and out.splitlines()[-1].split() == ["exit", "code", str(code)]


def test_an_interrupt_inside_a_pydantic_serializer_exits_as_an_interrupt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Ctrl-C that lands while pydantic serializes comes out as a PydanticSerializationError: still an
    interrupt (130, rows kept), not "internal error" (70)."""
    from pydantic import BaseModel, field_serializer

    from pipeline import cli

    class Serialized(BaseModel):
        value: int = 1

        @field_serializer("value")
        def interrupted_here(self, value: int) -> int:
            raise KeyboardInterrupt

    def execute(args: argparse.Namespace) -> object:
        return Serialized().model_dump()

    monkeypatch.setattr(cli, "execute", execute)
    assert cli.main(["stats", "--store", "nowhere"]) == cli.INTERRUPTED_EXIT_CODE
    assert "interrupted; finished rows are kept" in capsys.readouterr().err
