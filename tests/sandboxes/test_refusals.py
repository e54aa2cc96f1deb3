"""A record is an open description; what may run is the language registry's to say, before a batch starts.

A Program of any language string and a RunRequest under any setting validate (records read nothing above
them). The sandbox asks the registry before its backend sees a request: an unknown language, a setting the
toolchain cannot take (g++ on a Python file would come back as the program's own compile error) or a
setting on a program that builds itself stop the whole batch, and the backend has run nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from pipeline.records import ExecutionSetting, Program, RunRequest, RunResult
from sandboxes.backends.sandbox import Sandbox
from sandboxes.profiles import get_profile


class RecordingBackend:
    """Counts what reached it; answering is never needed, since a refused batch must not get here."""

    def __init__(self) -> None:
        self.seen: list[RunRequest] = []

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        self.seen.extend(requests)
        raise AssertionError("a refused batch reached the backend")


def request(program: Program, setting: ExecutionSetting | None = None) -> RunRequest:
    return RunRequest(program=program, setting=setting or ExecutionSetting(), profile=get_profile("default"))


@pytest.mark.parametrize(
    ("refused", "reason"),
    [
        (request(Program.single("cobol", "DISPLAY 'HI'.")), "unknown language 'cobol'"),
        (
            request(Program.single("python", "print(1)"), ExecutionSetting(compiler="g++")),
            r"Python cannot be built by 'g\+\+'",
        ),
        (
            request(
                Program.single("cpp", "int main(){}", run_instruction="make"),
                ExecutionSetting.from_surge_key("g++-C++14--O2"),
            ),
            "built by its own run_instruction",
        ),
    ],
)
def test_a_refused_request_stops_its_batch_before_the_backend(refused: RunRequest, reason: str) -> None:
    backend = RecordingBackend()
    fine = request(Program.single("python", "print(1)"))
    with pytest.raises(ValueError, match=reason) as raised, Sandbox(backend) as sandbox:
        list(sandbox.run_batch([fine, refused]))
    assert refused.run_id in str(raised.value) and backend.seen == []
