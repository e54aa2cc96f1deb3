"""A program killed from outside its sandbox (a container killed, the OOM killer, another sandbox's
cleanup) is a failure of ours, never the program's ``signal`` verdict; one that kills itself still is.

Without Dask or Docker: the test itself SIGKILLs the program from the host while it sleeps, as a `docker
kill` of a worker or another sandbox's kill-by-uid would, and the sandbox's runner survives to report it.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from pipeline.records import Limits, PhaseLimits, Program, Verdict
from tests.sandboxes.conftest import SMALL_LIMITS, run_one, sandbox_uid_processes

SLEEPER = "import time\nprint('up', flush=True)\ntime.sleep(2)\nprint('done')\n"
SLOW_LIMITS = Limits(compile=SMALL_LIMITS.compile, run=PhaseLimits(cpu_s=5, wall_s=10, memory_mib=256))
FIND_PROGRAM_S = 8.0


def command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def kill_the_program_once(backend: object, killed: list[int], name: str = "") -> None:
    """SIGKILL the processes running under the sandbox's uid (those whose command starts with ``name``),
    from the host, once they are seen."""
    deadline = time.monotonic() + FIND_PROGRAM_S
    while time.monotonic() < deadline:
        found = [pid for pid in sandbox_uid_processes(backend) if command_name(pid).startswith(name)]
        if found:
            time.sleep(0.3)  # well inside its sleep: what it printed is out
            for pid in found:
                os.kill(pid, signal.SIGKILL)
            killed.extend(found)
            return
        time.sleep(0.02)


def test_a_program_killed_from_outside_is_a_sandbox_error_not_its_verdict(backend: object) -> None:
    killed: list[int] = []
    killer = threading.Thread(target=kill_the_program_once, args=(backend, killed))
    killer.start()
    try:
        result = run_one(backend, Program.single("python", SLEEPER), limits=SLOW_LIMITS)
    finally:
        killer.join()
    assert killed, "the program was never seen running"
    assert result.verdict is Verdict.SANDBOX_ERROR, (result.verdict, result.run)
    assert "SIGKILL" in result.run.detail and "outside" in result.run.detail, result.run.detail


def test_a_child_killed_from_outside_under_a_shell_is_a_sandbox_error(backend: object) -> None:
    # the shell outlives its child and reports the kill as exit status 137, a runtime_error before
    program = Program.single("python", SLEEPER, run_instruction="python3 test.py && echo after")
    killed: list[int] = []
    killer = threading.Thread(target=kill_the_program_once, args=(backend, killed, "python"))
    killer.start()
    try:
        result = run_one(backend, program, limits=SLOW_LIMITS)
    finally:
        killer.join()
    assert killed, "the program was never seen running"
    assert result.verdict is Verdict.SANDBOX_ERROR, (result.verdict, result.run)
    assert result.run.exit_code == 137, result.run


def test_a_program_that_kills_itself_keeps_its_signal_verdict(backend: object) -> None:
    source = "import os, signal\nprint('bye', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    result = run_one(backend, Program.single("python", source), limits=SLOW_LIMITS)
    assert (result.verdict, result.run.signal, result.label) == (Verdict.SIGNAL, "SIGKILL", "bye\n")


def test_a_program_that_exits_137_then_another_error_keeps_its_own_status(backend: object) -> None:
    # 137 is what a shell reports for a child killed by SIGKILL; a program may also choose it (a random
    # exit status), and then its second run errs differently instead of running through
    source = (
        "import os, sys\n"
        "if os.path.exists('marker'):\n    sys.exit(3)\n"
        "open('marker', 'w').close()\nsys.exit(137)\n"
    )
    result = run_one(backend, Program.single("python", source), limits=SLOW_LIMITS)
    assert (result.verdict, result.run.exit_code) == (Verdict.RUNTIME_ERROR, 137), result.run
