"""Hostile programs (tests/programs/*/): each contained with the right verdict, the host unaffected."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest

from pipeline.records import Program, ProgramFile, RunResult, Verdict
from sandboxes.languages import spec_for
from tests.sandboxes.conftest import SMALL_LIMITS, host_processes_matching, run_one, sandbox_uid_processes

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"
CASES = sorted(p for p in PROGRAMS.iterdir() if (p / "case.toml").is_file())
ESCAPES = ["/usr/surge-escape", "/etc/surge-escape", "/surge-escape", "/root/surge-escape"]


def load(case: Path) -> tuple[Program, dict]:
    meta = tomllib.loads((case / "case.toml").read_text())
    source = next(p for p in case.iterdir() if p.name.startswith("main."))
    return Program(
        language=meta["language"], files=(ProgramFile(path=source.name, content=source.read_text()),)
    ), meta


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_hostile_program_is_contained(backend: object, case: Path) -> None:
    program, meta = load(case)
    limits = {name: meta[name] for name in ("cpu_s", "wall_s") if name in meta}
    run_limits = SMALL_LIMITS.run.model_copy(update=limits)
    result = run_one(backend, program, limits=SMALL_LIMITS.model_copy(update={"run": run_limits}))
    if result.verdict is Verdict.TOOLCHAIN_MISSING and not spec_for(program.language).setup_packages:
        pytest.skip(result.run.detail)  # names the tool: one `make setup` cannot install (Swift on Debian 12)
    assert result.verdict.value in meta["expected"], (result.verdict, result.run, result.compile)
    for stream in ("stdout", "stderr"):
        if stream in meta:
            assert getattr(result.run, stream) == meta[stream], result.run
    check = meta.get("host_check")
    if check:
        HOST_CHECKS[check.split(":")[0]](backend, result, check.partition(":")[2])
    assert not sandbox_uid_processes(backend), "a sandboxed process survived its phase"


def no_sandbox_processes(backend: object, result: RunResult, _: str) -> None:
    assert not sandbox_uid_processes(backend)
    # The parent waits for its child: a child still printing after its parent exited races the drain.
    forks = "import os\npid = os.fork()\nos.waitpid(pid, 0) if pid else print('fork ok')\n"
    follow_up = run_one(backend, Program.single("python", forks))
    assert follow_up.verdict is Verdict.OK and "fork ok" in follow_up.label


def no_process(backend: object, result: RunResult, needle: str) -> None:
    assert result.run.stdout == "parent done\n"
    assert host_processes_matching(needle) == []


def stdout_capped(backend: object, result: RunResult, _: str) -> None:
    assert result.run.stdout_truncated and len(result.run.stdout.encode()) == 64 << 10


def no_escape_files(backend: object, result: RunResult, _: str) -> None:
    assert "WROTE" not in result.run.stdout and result.run.stdout.count("refused") == 5
    assert not any(Path(p).exists() for p in ESCAPES)


def no_secrets(backend: object, result: RunResult, _: str) -> None:
    assert "READ" not in result.run.stdout and "LISTED" not in result.run.stdout, result.run.stdout


def no_connection(backend: object, result: RunResult, _: str) -> None:
    assert "CONNECTED" not in result.run.stdout and result.run.stdout.count("no network") == 2


def replacement_chars(backend: object, result: RunResult, _: str) -> None:
    assert result.run.stdout.startswith("ok \ufffd\ufffd\x00 bytes") and "\ufffd" in result.run.stderr


def next_run_fine(backend: object, result: RunResult, _: str) -> None:
    assert result.run.stdout == "deleted False\n"
    follow_up = run_one(backend, Program.single("python", "print(open('/app/test.py').read()[:5])"))
    assert follow_up.verdict is Verdict.OK and follow_up.label == "print\n"


HOST_CHECKS = {
    f.__name__: f
    for f in (
        no_sandbox_processes,
        no_process,
        stdout_capped,
        no_escape_files,
        no_secrets,
        no_connection,
        replacement_chars,
        next_run_fine,
    )
}


def test_runs_cannot_read_each_others_files(backend: object) -> None:
    # /dev/shm too: POSIX shared memory (multiprocessing's semaphores) must work and must not carry over
    writer = "\n".join(
        f"open('{path}', 'w').write('s3cret')"
        for path in ("/app/secret.txt", "/tmp/secret", "/dev/shm/secret")
    )
    reader = (
        "import os\nprint(sorted(os.listdir('/app')), "
        "[n for d in ('/tmp', '/dev/shm') for n in os.listdir(d) if 'secret' in n])\n"
    )
    written = run_one(backend, Program.single("python", writer + "\nprint('w')\n"))
    assert written.label == "w\n", written.run
    assert run_one(backend, Program.single("python", reader)).label == "['test.py'] []\n"


SYSV_WRITER = """#include <stdio.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
int main(void) {
    int shm = shmget(0x5375, 4096, IPC_CREAT | 0600);
    strcpy((char *)shmat(shm, NULL, 0), "s3cret");
    int queue = msgget(0x5375, IPC_CREAT | 0600), semaphore = semget(0x5375, 1, IPC_CREAT | 0600);
    printf("%d %d %d\\n", shm >= 0, queue >= 0, semaphore >= 0);
}
"""
SYSV_READER = """#include <stdio.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
int main(void) {
    printf("%d %d %d\\n", shmget(0x5375, 0, 0) >= 0, msgget(0x5375, 0) >= 0, semget(0x5375, 0, 0) >= 0);
}
"""


def test_system_v_ipc_does_not_outlive_its_program(backend: object) -> None:
    """Shared memory, queues and semaphores outlive processes: the next program must not find them."""
    assert run_one(backend, Program.single("c", SYSV_WRITER)).label == "1 1 1\n"
    assert run_one(backend, Program.single("c", SYSV_READER)).label == "0 0 0\n"


def test_huge_argv_and_stdin(backend: object) -> None:
    stdin = "".join(f"line {i}\n" for i in range(200_000))  # ~2.3 MB, far beyond a pipe's buffer
    argv = tuple(f"arg{i}" for i in range(20_000))
    source = (
        "import sys, hashlib\nprint(len(sys.argv) - 1, hashlib.sha256(sys.stdin.buffer.read()).hexdigest())\n"
    )
    result = run_one(backend, Program.single("python", source, argv=argv, stdin=stdin))
    assert result.verdict is Verdict.OK, result.run
    assert result.label == f"20000 {hashlib.sha256(stdin.encode()).hexdigest()}\n"


def test_peak_memory_is_the_programs_own(backend: object) -> None:
    source = "x = bytearray(150 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1\nprint('ok')\n"
    result = run_one(backend, Program.single("python", source))
    assert result.verdict is Verdict.OK
    assert 150 << 10 <= result.run.max_rss_kib < 256 << 10  # the program's 150 MiB, not the test process's
