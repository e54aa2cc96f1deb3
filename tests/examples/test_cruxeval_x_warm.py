"""CRUXEval-X's Go harness compiles from a build cache seeded once per runner (surge_cruxeval.x.compiled,
GO_SEED; sandboxes/inner/warm.py): its records and mutants compile and run as they do from an empty
cache, and the seeded compiles after the first skip the standard library's packages."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipeline.audit.convert import convert, load_dataset
from pipeline.audit.rows import Conversion
from pipeline.records import Language, Limits, RunRequest, RunResult
from sandboxes.languages import REGISTRY
from sandboxes.profiles import get_profile
from tests.conftest import require_tool
from tests.examples.cruxeval_files import PACKAGE

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("cruxeval_x", "require_bwrap")]
GO = Language("cruxeval-go")
# the seed's standard library is most of a cold compile's CPU (2.0 s against 0.3 seeded, measured): a
# seeded compile above half a cold one's has not used its seed
SEEDED_SHARE_AT_MOST = 0.5


def requests() -> list[RunRequest]:
    from surge_cruxeval.x.subset import SPEC

    folder = PACKAGE / "src" / "surge_cruxeval" / "data" / "cruxeval-x"
    records, _ = load_dataset(folder / "go.json", {SPEC.name})
    converted = [c for r in records if isinstance(c := convert(r), Conversion)]
    programs = [p for c in converted for p in (c.program, *c.probes)]
    return [RunRequest(program=p, profile=get_profile("default"), limits=Limits()) for p in programs]


def run(cache: Path) -> list[RunResult]:
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=cache) as backend:
        return list(backend.run_batch(requests()))


def facts(result: RunResult) -> tuple:
    phases = [p for p in (result.compile, result.run) if p is not None]
    return result.verdict, [(p.verdict, p.exit_code, p.stdout, p.stderr) for p in phases]


def compile_cpu_s(result: RunResult) -> float:
    assert result.compile is not None
    return result.compile.cpu_user_s + result.compile.cpu_sys_s


def test_a_seeded_go_compile_is_an_unseeded_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_tool("go")
    spec = REGISTRY[GO]
    assert spec.seeded_cache is not None
    seeded = run(tmp_path / "seeded")
    monkeypatch.setitem(REGISTRY, GO, dataclasses.replace(spec, seeded_cache=None))
    unseeded = run(tmp_path / "unseeded")
    assert [facts(r) for r in seeded] == [facts(r) for r in unseeded]
    assert {r.verdict.value for r in seeded} >= {"ok"}
    later = [compile_cpu_s(r) for r in seeded[1:]]
    cold = [compile_cpu_s(r) for r in unseeded]
    assert sum(later) / len(later) <= SEEDED_SHARE_AT_MOST * sum(cold) / len(cold), (later, cold)
