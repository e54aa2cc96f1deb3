"""`Sandbox`, what open_backend returns: each request to its language's checker or to the batch's backend.

No language is named here but through its spec: a throwaway checker is put on a language's spec for the
test, and it takes that language's programs (and names their toolchain in run ids) on any backend.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

import pytest

from pipeline.records import Limits, PhaseResult, Program, Provenance, RunRequest, RunResult, Verdict
from sandboxes.backends.base import Backend
from sandboxes.backends.registry import DEFAULT_BACKEND
from sandboxes.backends.sandbox import Sandbox
from sandboxes.identity import identify
from sandboxes.languages import REGISTRY, spec_for
from sandboxes.profiles import get_profile

CHECKED = "ruby"  # a language the test gives a checker of its own


class Answering:
    """A backend that answers each request with its own name in the label; it keeps the batches it saw."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.batches: list[list[str]] = []

    def run_batch(self, requests: Sequence[RunRequest]) -> Iterator[RunResult]:
        self.batches.append([r.program.files[0].content for r in requests])
        for request in requests:
            yield answered(request, self.name)


class Closing(Answering):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


@dataclasses.dataclass(eq=False)
class CountingChecker:
    """A checker whose backends are `Closing` ones, counted as they open."""

    opened: list[Closing] = dataclasses.field(default_factory=list)

    def open(self) -> Backend:
        self.opened.append(Closing("checker"))
        return self.opened[-1]

    def identity(self) -> str:
        return "checker-toolchain"


def answered(request: RunRequest, name: str) -> RunResult:
    phase = PhaseResult(verdict=Verdict.OK, stdout=f"{name}:{request.program.files[0].content}")
    provenance = Provenance(
        backend=name,
        profile="default",
        limits=Limits(),
        host="h",
        started_at=datetime.now(UTC),
        pipeline_version="0",
    )
    return RunResult.answering(request, run=phase, verdict=Verdict.OK, provenance=provenance)


def request(language: str, source: str) -> RunRequest:
    return RunRequest(program=Program.single(language, source), profile=get_profile("default"))


@pytest.fixture
def checker(monkeypatch: pytest.MonkeyPatch) -> CountingChecker:
    made = CountingChecker()
    spec = spec_for(CHECKED)
    monkeypatch.setitem(REGISTRY, spec.language, dataclasses.replace(spec, checker=made))
    return made


def test_a_batch_without_checked_languages_is_the_backends_batch_unchanged() -> None:
    backend = Answering("backend")
    with Sandbox(backend) as sandbox:  # a backend without close: nothing to close
        results = list(sandbox.run_batch([request("python", "1"), request("python", "2")]))
    assert [r.label for r in results] == ["backend:1", "backend:2"] and backend.batches == [["1", "2"]]


def test_each_request_goes_where_its_language_says_and_the_order_is_kept(checker: CountingChecker) -> None:
    backend = Closing("backend")
    sources = [(CHECKED, "a"), ("python", "b"), (CHECKED, "c"), ("python", "d")]
    with Sandbox(backend) as sandbox:
        results = list(sandbox.run_batch([request(language, text) for language, text in sources]))
        again = list(sandbox.run_batch([request(CHECKED, "e")]))
    assert [r.label for r in results] == ["checker:a", "backend:b", "checker:c", "backend:d"]
    assert [r.label for r in again] == ["checker:e"]
    (opened,) = checker.opened  # once per sandbox, one batch per destination and run_batch
    assert opened.batches == [["a", "c"], ["e"]] and backend.batches == [["b", "d"]]
    assert opened.closed == backend.closed == 1


def test_the_checker_names_the_toolchain_of_its_languages_run_ids(checker: CountingChecker) -> None:
    checked, other = identify([request(CHECKED, "a"), request("python", "b")], DEFAULT_BACKEND, unsafe=True)
    assert checked.toolchain_id == "checker-toolchain" and other.toolchain_id != "checker-toolchain"
