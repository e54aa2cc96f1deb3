"""Run ids are the store's keys: a rerun skips what is stored by them. They must not move when the code
around the runner changes (its driver, its protocol): two known requests, their ids pinned."""

from __future__ import annotations

from pipeline.records import ExecutionSetting, Program, RunRequest
from sandboxes.profiles import get_profile


def test_an_interpreted_request_keeps_its_run_id() -> None:
    request = RunRequest(program=Program.single("python", "print(1)\n"), profile=get_profile("default"))
    assert request.run_id == "b4522ff131c8b6d1"


def test_a_compiled_request_with_a_setting_and_repeats_keeps_its_run_id() -> None:
    request = RunRequest(
        program=Program.single("cpp", "int main(){}\n"),
        profile=get_profile("default"),
        setting=ExecutionSetting.from_surge_key("g++-C++14--O2"),
        repeats=2,
    )
    assert request.run_id == "f69b7563bfbb51b8"
