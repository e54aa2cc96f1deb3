"""The two environment profiles as images: "surge-repro" (bullseye) shows the traits of SURGE's released
labels that "current" (bookworm) does not (shared/notes/surge-ground-truth.md)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.records import EnvironmentProfile, Program, RunRequest, RunResult, Verdict

CURRENT = EnvironmentProfile(name="current", locale="C")
REPRO = EnvironmentProfile(name="surge-repro", locale="C")
INDEX_ERROR = "x = [1][5]\n"
THREAD = (
    "#include <thread>\n#include <iostream>\nint main(){ std::thread t([]{ std::cout << 1; }); t.join(); }\n"
)
ROUND_NO_ARGS = "#include <cmath>\nint main(){ return (int)::round(); }\n"


@pytest.fixture(scope="module")
def backend(repro_images: None, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(cache_dir=tmp_path_factory.mktemp("profiles-cache")) as opened:
        yield opened


def run(backend: Any, language: str, source: str, profile: EnvironmentProfile) -> RunResult:
    request = RunRequest(program=Program.single(language, source), profile=profile)
    return next(iter(backend.run_batch([request])))


def test_profiles_pick_their_images(backend: Any) -> None:
    repro = run(
        backend, "python", "import sys, platform\nprint(sys.version_info[:2], platform.libc_ver())\n", REPRO
    )
    current = run(
        backend, "python", "import sys, platform\nprint(sys.version_info[:2], platform.libc_ver())\n", CURRENT
    )
    assert repro.label == "(3, 9) ('glibc', '2.31')\n" and repro.provenance.image_digest.startswith(
        "surge/python:bullseye@"
    )
    assert current.label == "(3, 11) ('glibc', '2.36')\n"


def test_python_tracebacks_without_carets_as_in_the_labels(backend: Any) -> None:
    repro, current = (run(backend, "python", INDEX_ERROR, p) for p in (REPRO, CURRENT))
    assert (
        repro.verdict is Verdict.RUNTIME_ERROR and "IndexError: list index out of range" in repro.run.stderr
    )
    assert "^" not in repro.run.stderr and "~~~^^^" in current.run.stderr


def test_pthread_is_a_separate_library_before_glibc_2_34(backend: Any) -> None:
    repro, current = (run(backend, "cpp", THREAD, p) for p in (REPRO, CURRENT))
    assert (
        repro.verdict is Verdict.COMPILE_ERROR
        and "undefined reference to `pthread_create'" in repro.compile.stderr
    )
    assert (current.verdict, current.label) == (Verdict.OK, "1")


def test_system_header_lines_match_the_labels(backend: Any) -> None:
    repro, current = (run(backend, "cpp", ROUND_NO_ARGS, p) for p in (REPRO, CURRENT))
    assert "bits/mathcalls.h:298:1: note: declared here" in repro.compile.stderr  # as in SURGE's dr labels
    assert "bits/mathcalls.h:301:1: note: declared here" in current.compile.stderr  # Debian 12
