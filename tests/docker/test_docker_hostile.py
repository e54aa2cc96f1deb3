"""Hostile programs on the Docker backend: each is stopped with the right verdict, and the next program
runs normally in a clean container (a program that hit a limit never shares its container onwards)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.records import EnvironmentProfile, Limits, PhaseLimits, Program, RunRequest, Verdict

PROFILE = EnvironmentProfile(name="default")
LIMITS = Limits(run=PhaseLimits(cpu_s=1, wall_s=3, memory_mib=128, processes=32, output_bytes=32 << 10))

FORK_BOMB = """
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
"""
MEMORY_BOMB = "hog = []\nwhile True:\n    hog.append(bytearray(16 << 20))\n"
ENDLESS_OUTPUT = "while True:\n    print('x' * 1000)\n"
BUSY_LOOP = "while True:\n    pass\n"
SLEEPER = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(100)\n"
DETACHED_CHILD = """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
print("parent done")
"""
NETWORK = """
import socket
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    print("connected")
except OSError as error:
    print("blocked", type(error).__name__)
"""
SHADOW = """
try:
    print(open("/etc/shadow").read()[:20])
except OSError as error:
    print("denied", type(error).__name__)
"""
WRITE_ROOT = """
for path in ("/usr/bin/evil", "/etc/evil", "/evil"):
    try:
        open(path, "w").write("x")
        print("wrote", path)
    except OSError as error:
        print("refused", type(error).__name__)
"""
LIVE_PROCESSES = """
import os
mine = [p for p in os.listdir('/proc') if p.isdigit() and os.stat('/proc/' + p).st_uid == os.getuid()]
names = sorted(open(f'/proc/{p}/comm').read().strip() for p in mine)
print(names)
"""


# CPU-time cases get a generous wall: on a loaded machine a busy loop may get < 1 s of CPU in 3 s of wall.
CPU_LIMITS = Limits(run=LIMITS.run.model_copy(update={"wall_s": 30.0}))


def run(backend: Any, source: str, language: str = "python", limits: Limits = LIMITS) -> Any:
    request = RunRequest(program=Program.single(language, source), profile=PROFILE, limits=limits)
    return next(iter(backend.run_batch([request])))


def assert_next_program_is_clean(backend: Any) -> None:
    after = run(backend, LIVE_PROCESSES)
    assert after.verdict is Verdict.OK, after
    # docker-init, the runner and this program: nothing left over from the hostile one
    assert after.label.count("sleep") == 0 and after.label.count("python3") <= 2, after.label


@pytest.mark.parametrize(
    ("source", "verdicts", "limits"),
    [
        (FORK_BOMB, {Verdict.WALL_TIME_LIMIT, Verdict.CPU_TIME_LIMIT}, LIMITS),
        (MEMORY_BOMB, {Verdict.MEMORY_LIMIT}, LIMITS),
        (ENDLESS_OUTPUT, {Verdict.OUTPUT_LIMIT}, LIMITS),
        (BUSY_LOOP, {Verdict.CPU_TIME_LIMIT}, CPU_LIMITS),
        (SLEEPER, {Verdict.WALL_TIME_LIMIT}, LIMITS),
    ],
    ids=["fork-bomb", "memory-bomb", "endless-output", "busy-loop", "sleeper-ignoring-sigterm"],
)
def test_limits_stop_hostile_programs(
    docker_backend: Any, source: str, verdicts: set[Verdict], limits: Limits
) -> None:
    result = run(docker_backend, source, limits=limits)
    assert result.verdict in verdicts, (result.verdict, result.run.detail, result.run.stderr[-300:])
    assert result.run.wall_s < limits.run.wall_s + 3
    if result.verdict is Verdict.OUTPUT_LIMIT:
        assert result.run.stdout_truncated and len(result.run.stdout) <= LIMITS.run.output_bytes
    assert_next_program_is_clean(docker_backend)


def test_detached_children_do_not_survive_their_program(docker_backend: Any) -> None:
    result = run(docker_backend, DETACHED_CHILD)
    assert result.verdict is Verdict.OK and result.label == "parent done\n"
    assert_next_program_is_clean(docker_backend)


def test_no_network(docker_backend: Any) -> None:
    result = run(docker_backend, NETWORK)
    assert result.label.startswith("blocked OSError"), result.label


def test_no_secrets_and_no_writes_outside_scratch(docker_backend: Any) -> None:
    assert run(docker_backend, SHADOW).label == "denied PermissionError\n"
    refused = run(docker_backend, WRITE_ROOT).label.splitlines()
    assert len(refused) == 3 and all(line.startswith("refused") for line in refused), refused


def test_crash_is_a_signal_fact_not_shell_text(docker_backend: Any) -> None:
    source = '#include <stdio.h>\nint main(void){ puts("before"); fflush(stdout); *(volatile int*)0 = 1; }\n'
    result = run(docker_backend, source, language="c")
    assert (result.verdict, result.run.signal, result.label) == (Verdict.SIGNAL, "SIGSEGV", "before\n")
