"""A compiler kept warm (sandboxes/inner/warm.py) gives what a cold compile gives, byte for byte.

Each language's programs run twice through bwrap, in the same order: as the registry has them (a warm
server answers the compiles after the first) and with the spec's warm compiler taken away (every compile
cold). Clean compiles, a failing one and one with a warning are compared: status, streams, verdict, and
the run of what was compiled. The warm batch's server is looked for among the host's processes: it runs
under the uid a block above its runner's programs' uid.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from pipeline.records import Language, Program, ProgramFile, RunResult
from sandboxes.inner.warm import WARM_UID_OFFSET
from sandboxes.languages import REGISTRY
from tests.conftest import require_tool
from tests.sandboxes.conftest import request

PROGRAMS = {
    "java": (
        'public class Main { public static void main(String[] a) { System.out.println("one"); } }\n',
        'public class Main { public static void main(String[] a) { int x = "not a number"; } }\n',
        "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
        "  List l = new ArrayList(); l.add(1); System.out.println(l); } }\n",  # javac's unchecked note
        "public class Main { public static void main(String[] a) { System.out.println(2 + 3); } }\n",
    ),
    "scala": (
        'object Main { def main(args: Array[String]): Unit = println("one") }\n',
        'object Main { def main(args: Array[String]): Unit = { val x: Int = "no" } }\n',
        "object Main { def main(args: Array[String]): Unit = println(new java.util.Date(0).getYear) }\n",
        "object Main { def main(args: Array[String]): Unit = println(2 + 3) }\n",
    ),
    "typescript": (
        'console.log("one");\n',
        "const x: number = 'not a number';\nconsole.log(x);\n",  # tsc exits 2 and still emits
        "console.log([1, 2].includes(2));\n",
        "console.log(2 + 3);\n",
    ),
}
TOOLS = {"java": ("javac", "java"), "scala": ("scalac", "scala"), "typescript": ("tsc", "node")}
SERVERS = {"java": "WarmJavac.java", "scala": "WarmScalac.java", "typescript": "warm-tsc.js"}


def programs(language: str) -> list[Program]:
    name = {"java": "Main.java", "scala": "Main.scala", "typescript": "main.ts"}[language]
    return [
        Program(language=Language(language), files=(ProgramFile(path=name, content=source),))
        for source in PROGRAMS[language]
    ]


def run_all(language: str, cache: Path) -> tuple[list[RunResult], set[int]]:
    """The language's programs through a backend of their own; and its runners' programs' uids."""
    from sandboxes.backends.bwrap import BwrapBackend

    with BwrapBackend(cache_dir=cache) as backend:
        results = list(backend.run_batch([request(p) for p in programs(language)]))
        return results, set(backend.launcher.sandbox_uids)


def facts(result: RunResult) -> tuple:
    """What a label can be made of: every phase's status, streams and verdict."""
    phases = [p for p in (result.compile, result.run) if p is not None]
    return result.verdict, [(p.verdict, p.exit_code, p.signal, p.stdout, p.stderr) for p in phases]


def server_uids(language: str) -> set[int]:
    """The uids of the host's processes running the language's warm server."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and SERVERS[language].encode() in (entry / "cmdline").read_bytes():
                found.add(entry.stat().st_uid)
        except OSError:
            continue
    return found


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_warm_compile_is_a_cold_one(language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_tool("bwrap", *TOOLS[language])
    if os.getuid() != 0:
        pytest.skip("warm compilers need a runner that is root (bwrap as root): a uid for the server")
    spec = REGISTRY[Language(language)]
    assert spec.warm_compiler is not None
    warm, uids = run_all(language, tmp_path / "warm")
    assert {uid + WARM_UID_OFFSET for uid in uids} & server_uids(language), "no warm server ran"
    monkeypatch.setitem(REGISTRY, Language(language), dataclasses.replace(spec, warm_compiler=None))
    cold, _ = run_all(language, tmp_path / "cold")
    assert [facts(r) for r in warm] == [facts(r) for r in cold]
    assert warm[1].compile is not None and warm[1].compile.verdict.value == "compile_error"
