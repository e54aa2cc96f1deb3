"""Parity: the same program gives the same record on bwrap and on Docker (provenance and timings aside),
for every language both backends have here (Docker: its image is built; bwrap: the host has the tool)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    LabelProtocol,
    Language,
    Limits,
    PhaseLimits,
    Program,
    RunRequest,
    RunResult,
)
from sandboxes.languages import REGISTRY, SELF_TEST_OUTPUT
from tests.docker.conftest import by_language, ensure_image

PROFILE = EnvironmentProfile(name="default")
LIMITS = Limits(run=PhaseLimits(cpu_s=5, wall_s=20, memory_mib=512))
# facts of the machine, not of the program (a warm compiler's start is the runner's: setup_wall_s)
MEASURED = {"cpu_user_s", "cpu_sys_s", "wall_s", "setup_wall_s", "max_rss_kib"}

C_AND_FRIENDS = [
    Program.single("c", '#include <stdio.h>\nint main(void){int n; scanf("%d",&n); printf("%d\\n", n*n);}',
                   stdin="7\n"),
    Program.single("c", "#include <stdlib.h>\nint main(void){ abort(); }\n"),
    Program.single("cpp", '#include <iostream>\nint main(){ std::cout << sizeof(long) << "\\n"; int u; }\n',
                   protocol=LabelProtocol.COMPILE_THEN_RUN),
    Program.single("cpp", "int main() { return missing; }\n", protocol=LabelProtocol.COMBINED_WITH_PREFIX),
    Program.single("python", "import sys\nprint(sys.argv[1:], input())\nraise SystemExit(4)\n",
                   argv=("x y",), stdin="line\n"),
    Program.single("python", "def f(:\n  pass\n", protocol=LabelProtocol.COMBINED_WITH_PREFIX),
]  # fmt: skip
DR_SETTING = ExecutionSetting(compiler="g++", standard="c++11", optimization="O2", extra_flags=("-Wall",))


@pytest.fixture(scope="module")
def both(surge_images: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("needs `bwrap` (install with `make setup`)")
    from sandboxes.backends.bwrap import BwrapBackend
    from sandboxes.backends.docker import DockerBackend

    cache: Path = tmp_path_factory.mktemp("parity-cache")
    with (
        BwrapBackend(cache_dir=cache / "bwrap") as bwrap,
        DockerBackend(cache_dir=cache / "docker") as docker,
    ):
        yield bwrap, docker


def comparable(result: RunResult) -> dict[str, Any]:
    record = result.model_dump(exclude={"provenance"})
    for phase in ("compile", "run"):
        if record[phase] is not None:
            for fact in MEASURED:
                record[phase].pop(fact)
    return record


def run_on_both(both: tuple[Any, Any], request: RunRequest) -> tuple[RunResult, RunResult]:
    bwrap, docker = both
    return next(iter(bwrap.run_batch([request]))), next(iter(docker.run_batch([request])))


def programs_with_settings() -> list[tuple[Program, ExecutionSetting]]:
    # dr-style settings for C++ (a warning, then the output); each backend's defaults for the rest
    return [(p, DR_SETTING if p.language is Language.CPP else ExecutionSetting()) for p in C_AND_FRIENDS]


@pytest.mark.parametrize(
    ("program", "setting"), programs_with_settings(), ids=lambda v: getattr(v, "language", "")
)
def test_same_record_on_both_backends(
    both: tuple[Any, Any], program: Program, setting: ExecutionSetting
) -> None:
    from sandboxes.toolchains import find_tool

    spec = REGISTRY[program.language]
    missing = [t for t in spec.tools(setting, PROFILE) if find_tool(t) is None]
    if missing:
        pytest.skip(f"needs `{missing[0]}` on the host for bwrap: {spec.install_hint(missing[0])}")
    request = RunRequest(program=program, setting=setting, profile=PROFILE, limits=LIMITS)
    on_bwrap, on_docker = run_on_both(both, request)
    assert on_docker.provenance.backend == "docker" and on_bwrap.provenance.backend == "bwrap"
    assert comparable(on_docker) == comparable(on_bwrap)


SELF_TESTED = [spec.language for spec in REGISTRY.values() if spec.self_test]


@pytest.mark.parametrize("language", by_language(SELF_TESTED))
def test_every_language_both_have_agrees_on_its_self_test(both: tuple[Any, Any], language: Language) -> None:
    from sandboxes.backends.docker import image_for
    from sandboxes.toolchains import find_tool

    spec = REGISTRY[language]
    ensure_image(image_for(language, PROFILE))
    missing = [tool for tool in spec.tools(ExecutionSetting(), PROFILE) if find_tool(tool) is None]
    if missing:
        pytest.skip(f"needs `{missing[0]}` on the host for bwrap: {spec.install_hint(missing[0])}")
    request = RunRequest(program=Program.single(language, spec.self_test), profile=PROFILE, limits=LIMITS)
    on_bwrap, on_docker = run_on_both(both, request)
    assert on_docker.label.strip() == SELF_TEST_OUTPUT, on_docker
    assert comparable(on_docker) == comparable(on_bwrap)
