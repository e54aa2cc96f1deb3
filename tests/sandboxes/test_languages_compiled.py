"""D, Go, Scala, TypeScript and Swift: what each spec promises beyond its self-test (test_languages.py)."""

from __future__ import annotations

import pytest

from pipeline.records import ExecutionSetting, LabelProtocol, Program, Verdict
from sandboxes.languages import spec_for, version_flag
from sandboxes.languages.scala import main_object
from sandboxes.toolchains import find_tool, tool_version
from tests.sandboxes.conftest import run_one

D_UNITTEST = """import std.stdio;

int twice(int x) { return 2 * x; }

unittest {
    assert(twice(21) == %s);
}

void main() { writeln("main ran"); }
"""


def needs(language: str, tool: str) -> None:
    """Skip unless the sandbox finds `tool`, naming it and how to install it."""
    if find_tool(tool) is None:
        pytest.skip(f"needs `{tool}` ({spec_for(language).install_hint(tool)})")


def test_version_flags_come_from_the_specs() -> None:
    assert version_flag("go") == "version"  # `go --version` is an error whose first line names no version
    assert version_flag("scalac") == version_flag("/usr/lib/jvm/java-17/bin/java") == "-version"
    assert version_flag("gcc") == version_flag("clang++-19") == version_flag("ldc2") == "--version"


@pytest.mark.parametrize("tool", ["go", "scalac", "ldc2", "tsc"])
def test_the_version_line_names_the_version(tool: str) -> None:
    if find_tool(tool) is None:
        pytest.skip(f"needs `{tool}` (install with `make setup`)")
    line = tool_version(tool) or ""
    assert any(ch.isdigit() for ch in line) and "provided but not defined" not in line, line


@pytest.mark.parametrize(("compiler", "flag"), [("ldc2", "-unittest"), ("gdc", "-funittest")])
def test_d_extra_flags_compile_the_unittest_blocks_in(backend: object, compiler: str, flag: str) -> None:
    """CRUXEval-X's D programs assert in `unittest` blocks: the harness's flag must reach the compiler.
    (With unittests compiled in, druntime runs them instead of main: its default --DRT-testmode.)"""
    needs("d", compiler)
    with_tests = ExecutionSetting(compiler=compiler, extra_flags=(flag,))
    passing = run_one(backend, Program.single("d", D_UNITTEST % "42"), setting=with_tests)
    failing = run_one(backend, Program.single("d", D_UNITTEST % "41"), setting=with_tests)
    plain = ExecutionSetting(compiler=compiler)
    without = run_one(backend, Program.single("d", D_UNITTEST % "41"), setting=plain)
    assert passing.verdict is Verdict.OK, (passing.compile, passing.run)
    assert "1 modules passed unittests" in passing.run.stderr
    output = ("-of=/app/test",) if compiler == "ldc2" else ("-o", "/app/test")
    assert passing.compile.command == (compiler, flag, "/app/test.d", *output)
    assert failing.verdict is Verdict.RUNTIME_ERROR and "FAILED unittests" in failing.run.stderr, failing.run
    assert (without.verdict, without.run.stdout) == (Verdict.OK, "main ran\n")  # no flag: no unittests


def test_go_builds_offline_and_says_so(backend: object) -> None:
    needs("go", "go")
    files = (
        {
            "path": "main.go",
            "content": 'package main\n\nimport "rsc.io/quote"\n\nfunc main() { quote.Go() }\n',
        },
        {"path": "go.mod", "content": "module example.com/hello\n\ngo 1.15\n\nrequire rsc.io/quote v1.5.2\n"},
    )
    result = run_one(backend, Program(language="go", files=files))
    assert result.verdict is Verdict.COMPILE_ERROR, result.compile
    assert "GOPROXY=off" in result.compile.stderr  # refused before any download was tried
    assert result.compile.command == ("go", "build", "-o", "/app/test", "/app/main.go")


def test_go_panics_are_runtime_errors_with_the_source_line(backend: object) -> None:
    needs("go", "go")
    source = 'package main\n\nfunc main() {\n\tvar m map[string]int\n\tm["x"] = 1\n}\n'
    result = run_one(backend, Program.single("go", source))
    assert result.verdict is Verdict.RUNTIME_ERROR and result.run.exit_code == 2, result.run
    assert "assignment to entry in nil map" in result.run.stderr and "/app/test.go:5" in result.run.stderr


def test_scala_runs_the_object_that_declares_main(backend: object) -> None:
    source = (
        "object Helper { def twice(x: Long): Long = 2 * x }\n"
        "object Problem {\n"
        "    def main(args: Array[String]) = {\n"
        "    assert(Helper.twice(21l) == (42l));\n"
        '    println("asserted " + args.mkString(","))\n'
        "    }\n"
        "}\n"
    )
    assert main_object(source) == "Problem"
    assert main_object("object Main extends App { println(1) }") == "Main"
    needs("scala", "scalac")
    result = run_one(backend, Program.single("scala", source, argv=("a", "b")))
    assert result.verdict is Verdict.OK, (result.compile, result.run)
    assert result.run.stdout == "asserted a,b\n"
    assert result.run.command[:2] == ("scala", "-J-Xmx128m")  # half of the run's 256 MiB
    failing = run_one(backend, Program.single("scala", source.replace("42l", "41l")))
    assert failing.verdict is Verdict.RUNTIME_ERROR and "AssertionError" in failing.run.stderr


def test_typescript_targets_esnext_and_a_type_error_is_a_compile_error(backend: object) -> None:
    needs("typescript", "tsc")
    source = (
        "declare var require: any;\nconst assert = require('node:assert');\n"
        "function f(xs: string[]): [number, boolean] {\n"
        "  return [Object.entries({a: 1}).length, xs.includes('b')];\n}\n"
        "assert.deepEqual(f(['a', 'b']), [1, true]);\nconsole.log(f(['b']));\n"
    )
    result = run_one(backend, Program.single("typescript", source))
    assert result.verdict is Verdict.OK, (result.compile, result.run)
    assert result.run.stdout == "[ 1, true ]\n" and result.run.command == ("node", "/app/test.js")
    es5 = run_one(backend, Program.single("typescript", source), setting=ExecutionSetting(standard="es5"))
    assert es5.verdict is Verdict.COMPILE_ERROR and "'includes' does not exist" in es5.compile.stdout
    typo = Program.single(
        "typescript", "const n: number = 'text';\n", protocol=LabelProtocol.COMPILE_THEN_RUN
    )
    typed = run_one(backend, typo)
    assert typed.verdict is Verdict.COMPILE_ERROR and "TS2322" in typed.label


def test_swift_says_where_it_comes_from_when_absent(backend: object) -> None:
    if find_tool("swiftc") is not None:
        pytest.skip("swiftc is installed here")
    result = run_one(backend, Program.single("swift", 'print("hi")\n'))
    assert result.verdict is Verdict.TOOLCHAIN_MISSING
    assert "`swiftc` is not installed" in result.run.detail and "swiftlang" in result.run.detail
    assert "trixie" in result.run.detail
