"""The runner's verdict from raw facts (sandboxes/inner/runner.py ``judge``), for facts a real run gives
only under load: the kernel's CPU accounting and rusage disagree near RLIMIT_CPU."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sandboxes.inner.runner import judge, killed_unexplained

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


CC1PLUS_KILLED = b"g++: fatal error: Killed signal terminated program cc1plus\n"
SIGKILL_STATUS = 9  # a wait status: ended by signal 9


@pytest.mark.parametrize(
    ("wait_status", "stderr", "unexplained"),
    [
        (SIGKILL_STATUS, b"", True),  # the program itself, by no limit of ours
        (137 << 8, b"", True),  # a shell's child, as the shell reports it
        (1 << 8, CC1PLUS_KILLED, True),  # a compiler's child, as gcc's driver reports it
        (11, b"", False),  # SIGSEGV: only the program raises that
        (1 << 8, b"error: expected ';'\n", False),  # a compile error
    ],
)
def test_a_sigkill_no_limit_explains_is_confirmed_by_a_second_run(
    wait_status: int, stderr: bytes, unexplained: bool
) -> None:
    facts = judge(["prog"], outcome(0.01, stderr, wait_status), {"cpu_s": 1.0})
    assert killed_unexplained(facts) is unexplained, facts


def test_a_sigkill_of_our_cpu_limit_needs_no_second_run() -> None:
    facts = judge(["prog"], outcome(1.0, b"", SIGKILL_STATUS), {"cpu_s": 1.0})
    assert facts["status"] == "cpu_time_limit" and not killed_unexplained(facts), facts


def raw(status: str, signal_name: str | None = None) -> dict:
    return {"status": status, "signal": signal_name, "exit_code": None, "stderr": "", "detail": ""}


@pytest.mark.parametrize(
    ("runs", "oom_counts", "status"),
    [
        ([raw("ok")], [], "ok"),  # explained: no second run
        ([raw("signal", "SIGSEGV")], [], "signal"),
        ([raw("signal", "SIGKILL"), raw("signal", "SIGKILL")], [3, 3], "signal"),  # its own kill
        ([raw("signal", "SIGKILL"), raw("runtime_error")], [3], "sandbox_error"),  # not again: outside
        ([raw("signal", "SIGKILL"), raw("signal", "SIGKILL")], [3, 4], "sandbox_error"),  # OOM killer
    ],
)
def test_who_sent_a_sigkill_is_decided_by_a_second_run(
    monkeypatch: pytest.MonkeyPatch, runs: list[dict], oom_counts: list[int], status: str
) -> None:
    from sandboxes.inner import runner as runner_module

    left, counts = list(runs), list(oom_counts)
    monkeypatch.setattr(runner_module.Runner, "run_once", lambda self, phase: left.pop(0))
    monkeypatch.setattr(runner_module, "oom_kills", lambda: counts.pop(0))
    # no uid of the programs' own, so no warm compilers: the runner judges the phase alone
    options = SimpleNamespace(kill="group", spawn_helper=None)
    facts = runner_module.Runner(options).run_phase({"name": "run", "argv": ["prog"]})
    assert facts["status"] == status, facts
    assert not left and not counts, "the second run (and the OOM counts) were not used as expected"
