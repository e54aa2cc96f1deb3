"""The contract of a backend, checked on every backend alike: its one method, ``run_batch``.

The tests run on every registered backend, opened as the pipeline opens one (`open_backend`: the backend
with the languages' checkers beside it), and on toyhost (tests/sandboxes/toyhost.py: written from scratch
with `subprocess`, registered for this module). A backend added to the registry is tested here without
an edit; one that cannot start here, or cannot run Python here (Docker without its images: these tests
never build them), is skipped with its own reason. What only a sandbox owes (isolation, hostile programs)
is tested in test_hostile.py and tests/docker/.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.records import EnvironmentProfile, Limits, PhaseLimits, Program, RunRequest, RunResult, Verdict
from sandboxes import open_backend
from sandboxes.backends import registry
from sandboxes.backends.sandbox import Sandbox
from sandboxes.compile_cache import CACHE_DIR_ENV
from sandboxes.lean.backend import close_shared_pools
from sandboxes.profiles import get_profile
from tests.conftest import require_tool
from tests.lean.conftest import FAKE_REPL, lean_file
from tests.lean.conftest import request as proof_request
from tests.sandboxes import toyhost

LIMITS = Limits(
    compile=PhaseLimits(cpu_s=20, wall_s=40, memory_mib=2048),
    run=PhaseLimits(cpu_s=1, wall_s=3, memory_mib=256, processes=64, output_bytes=64 << 10),
)


@pytest.fixture(scope="module", params=[*registry.names(), toyhost.NAME])
def name(request: pytest.FixtureRequest) -> Iterator[str]:
    """The backend under test, as `--backend` takes it and its results' provenance record it."""
    if request.param not in registry.names():
        registry.register(toyhost.SPEC)
        request.addfinalizer(lambda: registry.unregister(toyhost.NAME))
    reason = registry.spec_for(request.param).missing(False)
    if reason is not None:
        pytest.skip(f"{reason} ({registry.spec_for(request.param).fix})")
    yield str(request.param)


@pytest.fixture(scope="module")
def sandbox(name: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_DIR_ENV, str(tmp_path_factory.mktemp("compile-cache")))
        with open_backend(name) as opened:
            (probe,) = opened.run_batch([python("print(1)")])
            if probe.verdict is Verdict.TOOLCHAIN_MISSING:
                pytest.skip(f"{name} cannot run Python here: {probe.run.detail if probe.run else ''}")
            yield opened


def python(source: str, repeats: int = 1, **program: object) -> RunRequest:
    return request(Program.single("python", source, **program), repeats=repeats)


def request(program: Program, profile: EnvironmentProfile | None = None, **kw: object) -> RunRequest:
    return RunRequest(program=program, profile=profile or get_profile("default"), limits=LIMITS, **kw)  # type: ignore[arg-type]


def run(sandbox: Sandbox, *requests: RunRequest) -> list[RunResult]:
    return list(sandbox.run_batch(list(requests)))


def test_each_request_is_answered_in_order_with_what_the_program_printed(sandbox: Sandbox) -> None:
    requests = [python(f"print({n} * 7)") for n in range(4)]
    requests.insert(2, python("import sys; sys.exit(3)"))
    results = run(sandbox, *requests)
    assert [r.run_id for r in results] == [r.run_id for r in requests]
    assert [r.label for r in results] == ["0\n", "7\n", "", "14\n", "21\n"]
    failed = results[2]
    assert failed.verdict is Verdict.RUNTIME_ERROR and failed.run is not None and failed.run.exit_code == 3


def test_stdin_and_arguments_reach_the_program(sandbox: Sandbox) -> None:
    source = "import sys; print(sys.argv[1:], sys.stdin.read().upper())"
    (result,) = run(sandbox, python(source, stdin="quiet", argv=("a", "b")))
    assert result.verdict is Verdict.OK and result.label == "['a', 'b'] QUIET\n"


def test_a_compiled_program_compiles_then_runs_and_a_compile_error_is_the_programs(sandbox: Sandbox) -> None:
    require_tool("gcc")
    hello = Program.single("c", '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n')
    broken = Program.single("c", "int main(void) { return x; }\n", protocol="compile_then_run")
    ran, refused = run(sandbox, request(hello), request(broken))
    assert ran.verdict is Verdict.OK and ran.compile is not None and ran.label == "hi\n"
    assert refused.verdict is Verdict.COMPILE_ERROR and refused.run is None
    assert refused.compile is not None and "error" in refused.compile.stderr


def test_a_program_past_its_time_limit_is_stopped_and_says_which(sandbox: Sandbox) -> None:
    (result,) = run(sandbox, python("while True:\n    pass\n"))
    assert result.verdict in (Verdict.CPU_TIME_LIMIT, Verdict.WALL_TIME_LIMIT)
    assert result.run is not None and result.run.wall_s <= LIMITS.run.wall_s * 3


def test_output_past_its_limit_is_cut_and_says_so(sandbox: Sandbox) -> None:
    (result,) = run(sandbox, python(f"print('x' * {LIMITS.run.output_bytes * 4})"))
    assert result.verdict is Verdict.OUTPUT_LIMIT and result.run is not None and result.run.stdout_truncated
    assert len(result.run.stdout) <= LIMITS.run.output_bytes


def test_a_missing_tool_is_toolchain_missing_naming_it(sandbox: Sandbox) -> None:
    nowhere = EnvironmentProfile(name="default", toolchains={"python3": "surge-no-such-python"})
    (result,) = run(sandbox, request(Program.single("python", "print(1)"), profile=nowhere))
    assert result.verdict is Verdict.TOOLCHAIN_MISSING and result.run is not None
    assert "`surge-no-such-python`" in result.run.detail


def test_repeats_run_the_program_again_and_tell_what_varied(sandbox: Sandbox) -> None:
    steady, random = run(
        sandbox, python("print(1)", repeats=3), python("import os; print(os.urandom(8).hex())", repeats=3)
    )
    assert steady.repeats == 3 and steady.deterministic
    assert random.repeats == 3 and random.distinct_outputs == 3 and "stdout" in random.varied


def test_the_provenance_names_the_backend_the_limits_and_the_tools(sandbox: Sandbox, name: str) -> None:
    (result,) = run(sandbox, python("print(1)"))
    assert result.provenance.backend == name and result.provenance.limits == LIMITS
    assert result.provenance.toolchain_versions["python3"].startswith("Python 3")


def test_proofs_go_to_their_checker_whichever_backend_runs_the_rest(
    sandbox: Sandbox, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SURGE_LEAN_REPL_COMMAND", json.dumps([sys.executable, str(FAKE_REPL)]))
    monkeypatch.setenv("SURGE_LEAN_PROJECT_DIR", str(tmp_path))
    proof = proof_request(lean_file("theorem t : True := by\n  trivial"))
    try:
        checked, ran = run(sandbox, proof, python("print(1)"))
    finally:
        close_shared_pools()  # the stand-in's REPLs: the settings they started under end with this test
    assert checked.verdict is Verdict.OK and json.loads(checked.label)["pass"] is True
    assert checked.provenance.backend == "lean-repl" and ran.provenance.backend == name
