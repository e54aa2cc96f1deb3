"""The runner's verdict from raw facts (sandboxes/inner/runner.py ``judge``), for facts a real run gives
only under load: the kernel's CPU accounting and rusage disagree near RLIMIT_CPU."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sandboxes.inner.runner import judge

CC1PLUS_ENDED = b"g++: internal compiler error: CPU time limit exceeded signal terminated program cc1plus\n"
EXIT_4 = 4 << 8  # a wait status: exited with status 4, as g++ does when its cc1plus was killed


def outcome(cpu_s: float, stderr: bytes, wait_status: int = EXIT_4) -> dict:
    usage = SimpleNamespace(ru_utime=cpu_s, ru_stime=0.0, ru_maxrss=1024)
    return {
        "usage": usage,
        "wait_status": wait_status,
        "stdout": b"",
        "stderr": stderr,
        "truncated": {"stdout": False, "stderr": False},
        "killed_for": "",
        "wall_s": 1.2,
    }


@pytest.mark.parametrize("cpu_s", [1.0, 0.95, 0.76])
def test_a_driver_whose_child_the_cpu_limit_ended_is_a_cpu_time_limit(cpu_s: float) -> None:
    # 0.76-0.95 s are what rusage read for a 1 s RLIMIT_CPU kill of cc1plus under contention
    facts = judge(["g++", "test.cpp"], outcome(cpu_s, CC1PLUS_ENDED), {"cpu_s": 1.0})
    assert facts["status"] == "cpu_time_limit", facts


@pytest.mark.parametrize(
    ("cpu_s", "stderr"),
    [
        (0.95, b"test.cpp:1:1: error: expected unqualified-id\n"),  # a real compile error near the limit
        (0.05, CC1PLUS_ENDED),  # the words alone, printed early, are the program's own output
    ],
)
def test_a_failure_that_did_not_use_up_its_budget_is_the_programs_own(cpu_s: float, stderr: bytes) -> None:
    facts = judge(["g++", "test.cpp"], outcome(cpu_s, stderr), {"cpu_s": 1.0})
    assert facts["status"] == "runtime_error", facts
