"""The Docker backend on the real engine: programs, hardening, warm reuse, recycling, missing images."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from pipeline.errors import SandboxUnavailable
from pipeline.records import (
    EnvironmentProfile,
    ExecutionSetting,
    Language,
    Limits,
    PhaseLimits,
    Program,
    RunRequest,
    Verdict,
)
from sandboxes.backends.docker import RUNNER_CAPABILITIES, SANDBOX_UID
from sandboxes.languages import REGISTRY, SELF_TEST_OUTPUT
from tests.conftest import REPO_ROOT
from tests.docker.conftest import by_language, ensure_image

PROFILE = EnvironmentProfile(name="default")
FAST_LIMITS = Limits(run=PhaseLimits(cpu_s=2, wall_s=4, memory_mib=256, processes=32, output_bytes=64 << 10))


DOUBLE_IT = '#include <iostream>\nint main(){int n; std::cin >> n; std::cout << n * 2 << "\\n";}'
ARGV = "import sys\nprint(sys.argv[1:])\n"


def run(backend: Any, program: Program, **kw: Any) -> Any:
    request = RunRequest(program=program, profile=kw.pop("profile", PROFILE), limits=FAST_LIMITS, **kw)
    return next(iter(backend.run_batch([request])))


def test_c_cpp_python_run_with_their_facts(docker_backend: Any) -> None:
    c = run(docker_backend, Program.single("c", '#include <stdio.h>\nint main(void){puts("c ok");return 3;}'))
    cpp = run(
        docker_backend,
        Program.single("cpp", DOUBLE_IT, stdin="21\n"),
        setting=ExecutionSetting(compiler="clang++", standard="c++11", optimization="O2"),
    )  # fmt: skip
    python = run(docker_backend, Program.single("python", ARGV, argv=("a b", "c")))
    assert (c.verdict, c.label, c.run.exit_code) == (Verdict.RUNTIME_ERROR, "c ok\n", 3)
    assert (cpp.verdict, cpp.label) == (Verdict.OK, "42\n")
    assert cpp.compile.command[:4] == ("clang++", "-std=c++11", "-O2", "/app/test.cpp")
    assert (python.verdict, python.label) == (Verdict.OK, "['a b', 'c']\n")  # argv without a shell
    for result in (c, cpp, python):
        assert result.provenance.backend == "docker"
        assert result.provenance.image_digest.startswith(
            ("surge/cpp:bookworm@sha256:", "surge/python:bookworm@")
        )
        assert result.run.max_rss_kib > 0 and result.run.wall_s > 0
    assert cpp.provenance.toolchain_versions["clang++"].startswith("Debian clang version 14")


def test_compile_error_keeps_the_diagnostics(docker_backend: Any) -> None:
    result = run(docker_backend, Program.single("cpp", "int main() { return x; }\n"))
    assert result.verdict is Verdict.COMPILE_ERROR and result.run is None
    assert "/app/test.cpp:1:21: error: " in result.compile.stderr and "'x'" not in result.compile.stderr


def test_warm_container_serves_many_programs_each_in_a_fresh_workdir(docker_backend: Any) -> None:
    started = docker_backend.launcher.containers_started
    leave = "open('/app/left.txt', 'w').write('x'); open('/tmp/left.txt', 'w').write('x')\n"
    look = "import os\nprint(sorted(os.listdir('/app')), sorted(os.listdir('/tmp')))\n"
    results = [run(docker_backend, Program.single("python", leave + f"# {n}\n")) for n in range(3)]
    seen = run(docker_backend, Program.single("python", look))
    assert all(result.verdict is Verdict.OK for result in results)
    assert seen.label == "['test.py'] ['home']\n"  # nothing of the earlier programs is left
    assert docker_backend.launcher.containers_started - started <= 1


def test_in_one_batch_a_program_behind_one_that_hit_a_limit_runs_in_a_fresh_container(
    docker_backend: Any,
) -> None:
    """A container's next job is written while one runs; a program that hit a limit may have spoilt the
    container, so its runner refuses the job queued behind it, which runs again in a fresh container."""
    leave = "open('/tmp/left.txt', 'w').write('x')\nwhile True: print('x' * 1000)\n"  # output_limit
    look = "import os\nprint(sorted(os.listdir('/tmp')))  # {n}\n"
    programs = [Program.single("python", source) for source in [leave, *(look.format(n=n) for n in range(3))]]
    run(docker_backend, Program.single("python", "print(0)\n"))  # a warm container (and the probe) first
    started = docker_backend.launcher.containers_started
    requests = [RunRequest(program=program, profile=PROFILE, limits=FAST_LIMITS) for program in programs]
    results = list(docker_backend.run_batch(requests))
    assert [r.verdict for r in results] == [Verdict.OUTPUT_LIMIT] + [Verdict.OK] * 3
    assert {r.label for r in results[1:]} == {"['home']\n"}
    assert docker_backend.launcher.containers_started - started == 1  # the spent one replaced, once


def test_containers_are_hardened(docker_backend: Any) -> None:
    run(docker_backend, Program.single("python", "print(1)\n"))
    runner = next(r for r in docker_backend.launcher.all_runners if r.shape.image == "surge/python:bookworm")
    attrs = docker_backend.launcher.api.inspect_container(runner.container_id)
    host = attrs["HostConfig"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["PidsLimit"] > 0 and host["Memory"] > 0 and host["Memory"] == host["MemorySwap"]
    assert set(host["Tmpfs"]) == {"/app", "/tmp"}
    # The runner is root with a few capabilities; what it runs is uid 10001 with none at all.
    assert attrs["Config"]["User"] == "0:0" and set(host["CapAdd"]) == set(RUNNER_CAPABILITIES)
    who = (
        "import os\n"
        "held = [line.split()[1] for line in open('/proc/self/status') if line[:6] in ('CapPrm', 'CapEff')]\n"
        "print(os.getuid(), os.getgid(), held)\n"
    )
    seen = run(docker_backend, Program.single("python", who))
    assert seen.label == f"{SANDBOX_UID} {SANDBOX_UID} ['0000000000000000', '0000000000000000']\n"


def test_one_containers_programs_do_not_spend_anothers_process_budget(docker_backend: Any) -> None:
    """Every container runs programs as uid 10001, and RLIMIT_NPROC counts a uid's processes machine-wide:
    set per program, a Java program's threads in one container would make another's fork fail. The pids
    limit of each container bounds its programs instead."""
    source = "import resource\nprint(resource.getrlimit(resource.RLIMIT_NPROC)[0] > 1000)\n"
    assert run(docker_backend, Program.single("python", source)).label == "True\n"


def test_recycles_after_n_programs(surge_images: None, tmp_path: Any) -> None:
    from sandboxes.backends.docker import DockerBackend

    with DockerBackend(cache_dir=tmp_path, recycle_after=2) as backend:
        results = [run(backend, Program.single("python", f"print({n})\n")) for n in range(5)]
        assert [r.label for r in results] == [f"{n}\n" for n in range(5)]
        assert backend.launcher.containers_started == 3  # probe + 2, 2, 1 programs per container


def test_missing_image_is_a_toolchain_verdict_with_the_fix(docker_backend: Any) -> None:
    profile = EnvironmentProfile(name="nowhere", image="surge/not-built-{family}:{suite}")
    result = run(docker_backend, Program.single("python", "print(1)\n"), profile=profile)
    assert result.verdict is Verdict.TOOLCHAIN_MISSING and "make images" in result.run.detail


def test_missing_tool_in_the_image(docker_backend: Any) -> None:
    program = Program.single("cpp", "int main(){}\n")
    result = run(docker_backend, program, setting=ExecutionSetting(compiler="clang++-7"))
    assert result.verdict is Verdict.TOOLCHAIN_MISSING


def test_engine_unreachable_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandboxes import open_backend
    from sandboxes.backends.docker import docker_status

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(SandboxUnavailable) as raised:
        open_backend("docker")
    assert "systemctl start docker" in raised.value.hint
    status = docker_status()
    assert status["available"] is False and "Docker engine" in status["hint"]


def test_docker_status_lists_the_images(surge_images: None) -> None:
    from sandboxes.backends.docker import docker_status

    status = docker_status()
    assert status["available"] and status["server_version"]
    assert any(line.startswith("surge/cpp:bookworm ") and "g++-12=" in line for line in status["images"])
    # the driver as the engine's own command line reports it, named in the line `surge doctor` prints
    driver = subprocess.run(
        ["docker", "info", "--format", "{{.Driver}}"], capture_output=True, text=True, timeout=60
    ).stdout.strip()
    assert status["storage_driver"] == driver
    assert f"storage driver {driver}" in status["summary"]


def test_a_slow_storage_driver_is_named_with_its_cost_and_fix() -> None:
    from sandboxes.backends.docker import engine_summary

    slow = engine_summary("28.2.2", "fuse-overlayfs")
    assert slow.startswith("28.2.2, storage driver fuse-overlayfs (")
    assert "overlay2" in slow and "storage-driver" in slow and "docs/docker.md" in slow
    assert engine_summary("28.2.2", "overlay2") == "28.2.2, storage driver overlay2"


def test_build_is_incremental(surge_images: None) -> None:
    build = subprocess.run(
        ["bash", str(REPO_ROOT / "dockerfiles" / "build.sh"), "--minimal", "bookworm"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    assert "surge/cpp:bookworm is up to date" in build.stdout
    assert "surge/python:bookworm is up to date" in build.stdout


def test_workers_keep_the_order_of_results(surge_images: None, tmp_path: Any) -> None:
    from sandboxes.backends.docker import DockerBackend

    sleepy = "import time\ntime.sleep({delay})\nprint({n})\n"
    requests = [
        RunRequest(program=Program.single("python", sleepy.format(delay=0.3 * (n % 2), n=n)), profile=PROFILE)
        for n in range(6)
    ]
    with DockerBackend(workers=2, cache_dir=tmp_path) as backend:
        labels = [result.label for result in backend.run_batch(requests)]
        assert labels == [f"{n}\n" for n in range(6)]
        assert 2 <= backend.launcher.containers_started <= 3  # one per worker (a probe may start its own)


SELF_TESTED = [spec.language for spec in REGISTRY.values() if spec.self_test]


@pytest.mark.parametrize("language", by_language(SELF_TESTED))
def test_every_built_image_passes_its_languages_self_test(docker_backend: Any, language: Language) -> None:
    from sandboxes.backends.docker import image_for

    image = image_for(language, PROFILE)
    ensure_image(image)
    spec = REGISTRY[language]
    request = RunRequest(program=Program.single(language, spec.self_test), profile=PROFILE)
    result = next(iter(docker_backend.run_batch([request])))
    assert (result.verdict, result.label.strip()) == (Verdict.OK, SELF_TEST_OUTPUT), result


def test_an_interrupt_kills_the_running_container_and_ends_the_batch(
    surge_images: None, tmp_path: Any
) -> None:
    """As under bwrap (tests/sandboxes/test_stopping.py): the user's interrupt kills the container now."""
    import threading
    import time

    from pipeline.stopping import STOPPING, Stopped, stop_everything
    from sandboxes.backends.docker import DockerBackend

    patient = Limits(run=PhaseLimits(cpu_s=5, wall_s=300, memory_mib=256))
    sleeper = Program.single(Language.PYTHON, "import time\ntime.sleep(300)\n")
    try:
        with DockerBackend(workers=1, cache_dir=tmp_path) as backend:
            results = iter(backend.run_batch([RunRequest(program=sleeper, profile=PROFILE, limits=patient)]))
            threading.Timer(3.0, stop_everything).start()
            began = time.monotonic()
            with pytest.raises(Stopped):
                next(results)
            waited = time.monotonic() - began
    finally:
        STOPPING.clear()
    assert waited < 60, f"the batch waited {waited:.0f} s for a container the interrupt should have killed"
