"""A new backend is one module plus one registration: a throwaway one reaches every consumer.

`toyhost` (tests/sandboxes/toyhost.py) is written from scratch: one method, ``run_batch``, running each
program with `subprocess` in a temporary folder (no isolation, trusted programs only), and a spec that
reads its toolchain identity its own way. The fixture registers it and removes it afterwards; nothing
else is edited: `--backend` takes it in `surge run` and `surge audit`, run ids and identity record it,
its batches open it, Lean's proofs go to their checker beside it, and `surge doctor` reports it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.cli import build_parser, main
from pipeline.errors import ConfigurationError
from pipeline.records import Program, RunRequest, content_id
from pipeline.stages.doctor import backend_statuses
from pipeline.store import Store
from sandboxes.backends import registry
from sandboxes.identity import identify
from sandboxes.profiles import get_profile
from tests.sandboxes import toyhost as toyhost_module

TOY = toyhost_module.NAME


@pytest.fixture
def toyhost() -> Iterator[ModuleType]:
    """The toy backend's module, registered for the test only."""
    registry.register(toyhost_module.SPEC)
    try:
        yield toyhost_module
    finally:
        registry.unregister(TOY)


def python_request(source: str = "print(1)", profile: str = "default") -> RunRequest:
    return RunRequest(program=Program.single("python", source), profile=get_profile(profile))


def test_every_command_with_backend_takes_it(toyhost: ModuleType) -> None:
    parser = build_parser()
    assert parser.parse_args(["run", "p.jsonl", "--backend", TOY]).backend == TOY
    assert parser.parse_args(["audit", "dataset/", "--backend", TOY]).backend == TOY
    assert parser.parse_args(["build", "--backend", TOY]).backend == TOY


def test_its_name_and_identity_make_the_run_ids(toyhost: ModuleType) -> None:
    request = python_request()
    (toy,) = identify([request], TOY)
    assert toy.backend == TOY and toy.toolchain_id == content_id("toyhost", "python")
    (local,) = identify([request], registry.DEFAULT_BACKEND, unsafe=True)
    assert toy.run_id != local.run_id  # another backend, another run
    # A profile whose toolchains live in images goes to the backend that runs images, as from bwrap.
    (image_bound,) = identify([python_request(profile="current")], TOY)
    assert image_bound.backend == registry.image_backend().name != TOY


def test_surge_run_runs_on_it(
    toyhost: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    programs = tmp_path / "p.jsonl"
    programs.write_text(
        "".join(json.dumps({"language": "python", "source": f"print({n})"}) + "\n" for n in (1, 2))
    )
    store = tmp_path / "store"
    argv = ["run", str(programs), "--store", str(store), "--backend", TOY, "--workers", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["written"] == 2 and summary["failures"] == []
    rows = list(Store(store).runs.records())
    assert {row.label for row in rows} == {"1\n", "2\n"}
    assert {row.provenance.backend for row in rows} == {TOY} and toyhost.OPENED
    expected = {r.run_id for r in identify([python_request("print(1)"), python_request("print(2)")], TOY)}
    assert {row.run_id for row in rows} == expected
    assert main(argv) == 0  # a rerun finds its rows under the same ids
    assert json.loads(capsys.readouterr().out)["already_stored"] == 2


def test_surge_audit_runs_on_it(
    toyhost: ModuleType, samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    argv = ["audit", str(samples / "surge-released" / "cl.json"), "--backend", TOY, "--repeats", "1"]
    argv += ["--store", str(store), "--report", str(tmp_path / "r.html"), "--workers", "1", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["runs_executed"] == summary["runs_planned"] > 0 and summary["failures"] == []
    assert {row.provenance.backend for row in Store(store).runs.records()} == {TOY}
    assert summary["by_subset"]["cl"]["labels"] == 3


def test_doctor_and_the_errors_name_it(toyhost: ModuleType) -> None:
    assert backend_statuses()[TOY]["summary"] == "each program in a temporary folder, no isolation"
    registry.check_available({TOY})  # nothing missing: no error
    with pytest.raises(ValueError, match="already registered"):
        registry.register(toyhost.SPEC.__class__(**{**vars(toyhost.SPEC), "fix": "another"}))
    registry.unregister(TOY)
    with pytest.raises(ConfigurationError, match=f"unknown sandbox backend '{TOY}'"):
        registry.spec_for(TOY)
    registry.register(toyhost.SPEC)
