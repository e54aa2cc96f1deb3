"""What keeps a warm compiler honest (sandboxes/inner/warm.py), shown with servers that misbehave.

`toycc` is a throwaway compiled language: its compiler is `sh -c "cp test.toy out.txt"` (a failing
program's: a message on stderr and exit status 1), and it runs `cat out.txt`. Its warm server is a small
Python program speaking the servers' protocol, which copies as the compiler does, or lies: writes other
bytes, speaks on its own stderr, or answers a failing compile with its own message. Whatever it does,
every program's compile and run must be the cold compiler's.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.records import EnvironmentProfile, ExecutionSetting, Language, Program, ProgramFile
from sandboxes.inner.warm import WARM_UID_OFFSET
from sandboxes.languages import REGISTRY
from sandboxes.languages.base import LanguageSpec, WarmCompiler
from tests.conftest import require_tool
from tests.sandboxes.conftest import request

TOY = Language("toycc")
COMPILE = "cp /app/test.toy /app/out.txt || exit 1; grep -q FAIL /app/test.toy && echo cold >&2 && exit 1; :"
SERVER = """\
import os, sys
BEHAVIOUR = {behaviour!r}
if BEHAVIOUR == "slow":
    import time; time.sleep({start_s})
if BEHAVIOUR == "noisy":
    sys.stderr.write("a warning a cold start would print every time\\n"); sys.stderr.flush()
for line in sys.stdin.buffer:
    source = open("/app/test.toy", "rb").read()
    failing = b"FAIL" in source
    with open("/app/out.txt", "wb") as out:
        out.write(b"warm\\n" if BEHAVIOUR == "liar" else source)
    err = b"warm\\n" if failing else b""
    sys.stdout.buffer.write(b"EXIT %d 0 %d\\n" % (int(failing), len(err)) + err)
    sys.stdout.buffer.flush()
"""


@dataclasses.dataclass(frozen=True)
class ToySpec(LanguageSpec):
    def compile_argv(
        self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile
    ) -> list[str]:
        return ["sh", "-c", COMPILE]

    def run_argv(self, program: Program, setting: ExecutionSetting, profile: EnvironmentProfile) -> list[str]:
        return ["cat", "/app/out.txt"]


def toy_spec(behaviour: str) -> ToySpec:
    marker = f"surge-toycc-{behaviour}-{os.getpid()}"
    server = ("python3", "-c", f"# {marker}\n" + SERVER.format(behaviour=behaviour, start_s=SLOW_START_S))
    return ToySpec(
        language=TOY,
        display_name="ToyCC",
        aliases=(),
        source_name="test.toy",
        extensions=(".toy",),
        default_tool="sh",
        apt_packages={"sh": "dash"},
        refactor_file="test.toy",
        fence_tags=("toycc",),
        line_comments=("#",),
        image_family="toycc",
        artifacts=("out.txt",),
        warm_compiler=WarmCompiler(server=server, serves="sh"),
    )


@pytest.fixture
def toycc(request: pytest.FixtureRequest) -> Iterator[ToySpec]:
    spec = toy_spec(request.param)
    REGISTRY[TOY] = spec
    try:
        yield spec
    finally:
        del REGISTRY[TOY]


def program(text: str) -> Program:
    return Program(language=TOY, files=(ProgramFile(path="test.toy", content=text),))


def run(texts: list[str], cache: Path) -> tuple[list[tuple[str, str, str]], set[int]]:
    """Each program's compile stderr, compile verdict and run output; and the batch's programs' uids."""
    require_tool("bwrap")
    if os.getuid() != 0:
        pytest.skip("warm compilers need a runner that is root (bwrap as root): a uid for the server")
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=cache) as backend:
        results = list(backend.run_batch([request(program(text)) for text in texts]))
        uids = set(backend.launcher.sandbox_uids)
    facts = []
    for result in results:
        assert result.compile is not None
        facts.append(
            (result.compile.stderr, result.compile.verdict.value, result.run.stdout if result.run else "")
        )
    return facts, uids


def server_uids(spec: ToySpec) -> set[int]:
    """The uids of the host's processes running the spec's server now."""
    assert spec.warm_compiler is not None
    marker = spec.warm_compiler.server[2].split("\n", 1)[0].removeprefix("# ").encode()
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes():
                found.add(entry.stat().st_uid)
        except OSError:
            continue
    return found


SLOW_START_S = 0.6  # a "slow" server's start, before it reads its first request
TEXTS = ["one\n", "two\n", "FAIL three\n", "four\n"]
COLD = [("", "ok", "one\n"), ("", "ok", "two\n"), ("cold\n", "compile_error", ""), ("", "ok", "four\n")]


@pytest.mark.parametrize("toycc", ["honest"], indirect=True)
def test_an_honest_server_serves_and_a_failing_compile_is_the_cold_compilers(
    toycc: ToySpec, tmp_path: Path
) -> None:
    facts, uids = run(TEXTS, tmp_path)
    assert facts == COLD  # the failing compile's message is the cold compiler's, not the server's
    assert {uid + WARM_UID_OFFSET for uid in uids} & server_uids(toycc), "the server was not kept"


@pytest.mark.parametrize("toycc", ["liar", "noisy"], indirect=True)
def test_a_server_that_differs_from_the_cold_compiler_is_never_used(toycc: ToySpec, tmp_path: Path) -> None:
    facts, _ = run(TEXTS, tmp_path)
    assert facts == COLD
    assert not server_uids(toycc), "a server caught differing was kept"


@pytest.mark.parametrize("toycc", ["slow"], indirect=True)
def test_a_servers_start_is_said_apart_from_the_compiles_own_wall_time(
    toycc: ToySpec, tmp_path: Path
) -> None:
    """The first program's compile waited for the server's start and ran cold beside it: its wall time
    is the cold compile's, the start is its ``setup_wall_s``; the next ones pay only the hand-over."""
    require_tool("bwrap")
    if os.getuid() != 0:
        pytest.skip("warm compilers need a runner that is root (bwrap as root): a uid for the server")
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=tmp_path) as backend:
        results = list(backend.run_batch([request(program(text)) for text in ("one\n", "two\n", "four\n")]))
    compiles = [result.compile for result in results]
    assert all(phase is not None and phase.verdict.value == "ok" for phase in compiles)
    first, *later = [(phase.wall_s, phase.setup_wall_s) for phase in compiles if phase is not None]
    assert first[0] < SLOW_START_S <= (first[1] or 0.0), first
    assert all(setup is not None and setup < SLOW_START_S / 2 for _, setup in later), later
