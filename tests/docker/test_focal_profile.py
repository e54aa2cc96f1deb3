"""Profile "surge-focal": the toolchain SURGE's dr labels show (an Ubuntu 20.04 host with a newer clang:
gcc 9's paths, glibc 2.31, pthread a separate library, clang 19's line gutters), as its image really
runs it (shared/notes/surge-ground-truth.md, docs/docker.md)."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from pipeline.audit.classify import classify
from pipeline.audit.rows import AuditClass
from pipeline.records import ExecutionSetting, LabelProtocol, Program, RunRequest, RunResult, Verdict
from sandboxes.profiles import get_profile
from tests.conftest import REPO_ROOT

IMAGE = "surge/cpp:focal"
THREAD = (
    "#include <thread>\n#include <iostream>\nint main(){ std::thread t([]{ std::cout << 1; }); t.join(); }\n"
)
GLIBC = "#include <gnu/libc-version.h>\n#include <cstdio>\nint main(){ std::puts(gnu_get_libc_version()); }\n"
# dr's second released sample (sources/samples/surge-released/dr.json): clang with gutters
PRINTF = 'int main() {\n    double sum = 0;\n\n\n\n\n    printf("%.10f\\n", sum);\n}\n'
PRINTF_LABEL = (
    "test.cpp:7:5: error: use of undeclared identifier 'printf'\n"
    '    7 |     printf("%.10f\\n", sum);\n      |     ^\n1 error generated.\n'
)


@pytest.fixture(scope="module")
def backend(focal_images: None, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(cache_dir=tmp_path_factory.mktemp("focal-cache")) as opened:
        yield opened


def run(backend: Any, source: str, compiler: str = "g++") -> RunResult:
    setting = ExecutionSetting(compiler=compiler, standard="c++11", source_paths="relative")
    program = Program.single("cpp", source, protocol=LabelProtocol.COMPILE_THEN_RUN)  # as dr's labels
    request = RunRequest(program=program, setting=setting, profile=get_profile("surge-focal"))
    return next(iter(backend.run_batch([request])))


def version(tool: str) -> str:
    command = ["docker", "run", "--rm", IMAGE, tool, "--version"]
    probe = subprocess.run(command, capture_output=True, text=True, check=True)
    return probe.stdout.splitlines()[0]


def test_the_image_has_the_toolchain_the_profile_names(focal_images: None) -> None:
    assert version("g++").startswith("g++ (Debian 9.")
    assert version("gcc").startswith("gcc (Debian 9.")
    assert "clang version 19." in version("clang++")
    assert version("ldd").endswith(" 2.31")


def test_programs_run_on_glibc_2_31_whichever_compiler(backend: Any) -> None:
    for compiler in ("g++", "clang++"):
        result = run(backend, GLIBC, compiler)
        assert (result.verdict, result.label) == (Verdict.OK, "2.31\n"), compiler


def test_a_pthread_label_reproduces_up_to_fingerprints(backend: Any) -> None:
    result = run(backend, THREAD)
    stderr = result.compile.stderr if result.compile else ""
    assert result.verdict is Verdict.COMPILE_ERROR and "undefined reference to `pthread_create'" in stderr
    # the label an Ubuntu 20.04 host printed: another temporary object name, the same text otherwise
    label = result.label.replace(stderr.split("/tmp/")[1].split(".o")[0], "ccAbc123")
    verdict = classify(result, label)
    assert verdict.audit_class is AuditClass.TOOLCHAIN_DRIFT and "/tmp/ccAbc123.o" in verdict.reason


def test_clang_prints_the_gutters_of_the_dr_labels(backend: Any) -> None:
    result = run(backend, PRINTF, "clang++")
    assert result.verdict is Verdict.COMPILE_ERROR
    assert classify(result, PRINTF_LABEL).audit_class is AuditClass.EXACT


def test_the_focal_build_is_incremental(focal_images: None) -> None:
    """The hash of its inputs covers the bookworm image clang comes from: unchanged, nothing rebuilds."""
    build = subprocess.run(
        ["bash", str(REPO_ROOT / "dockerfiles" / "build.sh"), "--suites", "focal", "cpp"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    assert "surge/cpp:bookworm is up to date" in build.stdout
    assert "surge/cpp:focal is up to date" in build.stdout
