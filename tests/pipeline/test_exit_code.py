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
