"""CRUXEval-X's Go and C++ harnesses compile from a seed made once per runner (surge_cruxeval.x.compiled:
Go's build cache with the standard library, C++'s bits/stdc++.h precompiled; sandboxes/inner/warm.py):
their records and mutants compile and run as they do without it, and the seeded compiles after the
first skip the work the seed did. A C++ program that does not begin as CRUXEval-X's do compiles as it is."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pipeline.audit.convert import convert, load_dataset
from pipeline.audit.rows import Conversion
from pipeline.records import Language, Limits, Program, ProgramFile, RunRequest, RunResult
from sandboxes.languages import REGISTRY
from sandboxes.profiles import get_profile
from tests.conftest import require_tool
from tests.examples.cruxeval_files import PACKAGE

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("cruxeval_x", "require_bwrap")]
STEMS = {"go": Language("cruxeval-go"), "cpp": Language("cruxeval-cpp")}
TOOLS = {"go": "go", "cpp": "g++"}
# the seed's standard library is most of a cold compile's CPU (2.0 s against 0.3 seeded, measured): a
# seeded compile above half a cold one's has not used its seed
SEEDED_SHARE_AT_MOST = 0.5


def requests(stem: str) -> list[RunRequest]:
    from surge_cruxeval.x.subset import SPEC

    folder = PACKAGE / "src" / "surge_cruxeval" / "data" / "cruxeval-x"
    records, _ = load_dataset(folder / f"{stem}.json", {SPEC.name})
    converted = [c for r in records if isinstance(c := convert(r), Conversion)]
    programs = [p for c in converted for p in (c.program, *c.probes)]
    return [RunRequest(program=p, profile=get_profile("default"), limits=Limits()) for p in programs]


def run(cache: Path, batch: list[RunRequest]) -> list[RunResult]:
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=cache) as backend:
        return list(backend.run_batch(batch))


def facts(result: RunResult) -> tuple:
    phases = [p for p in (result.compile, result.run) if p is not None]
    return result.verdict, [(p.verdict, p.exit_code, p.stdout, p.stderr) for p in phases]


def compile_cpu_s(result: RunResult) -> float:
    assert result.compile is not None
    return result.compile.cpu_user_s + result.compile.cpu_sys_s


@pytest.mark.parametrize("stem", sorted(STEMS))
def test_a_seeded_compile_is_an_unseeded_one(stem: str, tmp_path: Path) -> None:
    require_tool(TOOLS[stem])
    language = STEMS[stem]
    spec = REGISTRY[language]
    assert spec.seeded_cache is not None
    seeded = run(tmp_path / "seeded", requests(stem))
    # Swapped back here, not by monkeypatch: monkeypatch's undo runs after the cruxeval_x fixture has
    # taken the harness languages out, and would put this one back into the registry for later tests.
    REGISTRY[language] = dataclasses.replace(spec, seeded_cache=None)
    try:
        unseeded = run(tmp_path / "unseeded", requests(stem))
    finally:
        REGISTRY[language] = spec
    assert [facts(r) for r in seeded] == [facts(r) for r in unseeded]
    assert {r.verdict.value for r in seeded} >= {"ok"}
    later = [compile_cpu_s(r) for r in seeded[1:]]
    cold = [compile_cpu_s(r) for r in unseeded]
    assert sum(later) / len(later) <= SEEDED_SHARE_AT_MOST * sum(cold) / len(cold), (later, cold)


# A macro defined before the standard headers breaks them (size_t's typedef): compiled as it is, g++
# refuses it. With the header forced in front it would compile.
NOT_THE_PROLOGUE = (
    "#define size_t int\n#include<assert.h>\n#include<bits/stdc++.h>\nint main() { return 0; }\n"
)


def test_a_cpp_program_that_begins_otherwise_is_compiled_as_it_is(tmp_path: Path) -> None:
    require_tool("g++")
    first = requests("cpp")[0]  # seeds the runner and passes its check against a cold compile
    other = Program(language=STEMS["cpp"], files=(ProgramFile(path="test.cpp", content=NOT_THE_PROLOGUE),))
    results = run(tmp_path, [first, first.model_copy(update={"program": other})])
    assert results[0].verdict.value == "ok"
    assert results[1].compile is not None
    assert "multiple types in one declaration" in results[1].compile.stderr
