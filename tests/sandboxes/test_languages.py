"""Every language proves itself (DMOJ-style self-tests), skipping what this machine lacks, by name."""

from __future__ import annotations

import pytest

from pipeline.records import ExecutionSetting, Language, Program, RunRequest, Verdict
from sandboxes.languages import REGISTRY, SELF_TEST_OUTPUT, spec_for
from sandboxes.profiles import get_profile
from sandboxes.toolchains import find_tool
from tests.sandboxes.conftest import SMALL_LIMITS, run_one

# Languages a machine set up with `make setup` may lack (not packaged by Debian 12).
ALLOWED_MISSING = {Language.JULIA, Language.LEAN4, Language("swift")}


@pytest.mark.parametrize("language", list(REGISTRY), ids=lambda lang: lang.value)
def test_every_language_runs_its_self_test(backend: object, language: Language) -> None:
    spec = REGISTRY[language]
    missing = [t for t in spec.tools(ExecutionSetting(), get_profile("default")) if find_tool(t) is None]
    result = run_one(backend, Program.single(language, spec.self_test))
    if missing:
        assert language in ALLOWED_MISSING, f"{missing} should be installed by `make setup`"
        assert result.verdict is Verdict.TOOLCHAIN_MISSING
        assert missing[0] in result.run.detail and "install" in result.run.detail
        return
    assert result.verdict is Verdict.OK, (result.compile, result.run)
    assert result.label.strip() == SELF_TEST_OUTPUT
    assert result.provenance.backend == "bwrap"
    assert all(version != "missing" for version in result.provenance.toolchain_versions.values())


def test_missing_compiler_is_a_verdict_not_a_crash(backend: object) -> None:
    setting = ExecutionSetting(compiler="clang++-7")  # no Debian 12 machine has it
    result = run_one(backend, Program.single("cpp", "int main(){}"), setting=setting)
    assert result.verdict is Verdict.TOOLCHAIN_MISSING
    assert "clang++-7" in result.run.detail and "apt-get install clang-7" in result.run.detail


@pytest.mark.parametrize("compiler", ["g++", "clang++", "clang++-14", "clang++-19"])
def test_cpp_compilers_and_dr_setting(backend: object, compiler: str) -> None:
    if find_tool(compiler) is None:
        pytest.skip(f"needs `{compiler}` (install with `make setup`)")
    source = '#include <cstdio>\nint main(){ int unused; std::printf("%d\\n", 6 * 7); }\n'
    setting = ExecutionSetting(compiler=compiler, standard="c++11", optimization="O2", extra_flags=("-Wall",))
    program = Program.single("cpp", source, protocol="compile_then_run")
    result = run_one(backend, program, setting=setting)
    assert result.verdict is Verdict.OK
    assert result.compile.command[:3] == (compiler, "-std=c++11", "-O2")
    assert "unused" in result.compile.stderr  # -Wall warning: compile output comes first in a dr label
    assert result.label.startswith(result.compile.stdout + result.compile.stderr)
    assert result.label.endswith("42\n")


def test_java_file_is_named_after_the_public_class_and_main_class_runs(backend: object) -> None:
    source = (
        "class Helper { static int twice(int x) { return 2 * x; } }\n"
        "public class Greeter { public static void main(String[] args) {"
        " System.out.println(Helper.twice(21) + args[0]); } }\n"
    )
    spec = spec_for("java")
    program = Program.single("java", source, argv=("!",))
    assert spec.placed_files(program)[0][0] == "Greeter.java"
    result = run_one(backend, program)
    assert result.verdict is Verdict.OK, result.compile
    assert result.run.stdout == "42!\n"
    assert result.run.command[-2:] == ("Greeter", "!")


def test_argv_is_passed_without_a_shell_and_stdin_is_fed(backend: object) -> None:
    source = "import sys\nprint(sys.argv[1:])\nprint(sys.stdin.read().upper())\n"
    argv = ("two words", "$HOME", "a\nb", "*")
    result = run_one(backend, Program.single("python", source, argv=argv, stdin="hello"))
    assert result.run.stdout == "['two words', '$HOME', 'a\\nb', '*']\nHELLO\n"


def test_repository_with_run_instruction(backend: object) -> None:
    files = (
        {
            "path": "main.cpp",
            "content": '#include "car.h"\n#include <cstdio>\nint main(){ std::printf("%d\\n", wheels()); }\n',
        },
        {"path": "car.h", "content": "int wheels();\n"},
        {"path": "src/car.cpp", "content": '#include "../car.h"\nint wheels(){ return 4; }\n'},
    )
    program = Program(language="cpp", files=files, run_instruction="g++ main.cpp src/car.cpp -o main\n./main")
    result = run_one(backend, program)
    assert result.verdict is Verdict.OK, result.run
    assert result.compile is None and result.run.stdout == "4\n"
    assert result.run.command == ("sh", "-c", program.run_instruction)


def test_rl_style_instruction_with_python_and_workers(tmp_path: object) -> None:
    from sandboxes.backends.bwrap import BwrapBackend
    from tests.sandboxes.conftest import request

    files = (
        {
            "path": "game.py",
            "content": "import sys\nfrom helper import answer\nprint(answer(), sys.argv[1:])\n",
        },
        {"path": "helper.py", "content": "def answer():\n    return 24\n"},
    )
    program = Program(language="python", files=files, run_instruction="python game.py -s game.txt")
    others = [Program.single("python", f"print({i} * 2)") for i in range(3)]
    with BwrapBackend(workers=2, cache_dir=str(tmp_path)) as sandbox:
        results = list(sandbox.run_batch([request(p) for p in (program, *others)]))
    assert results[0].verdict is Verdict.OK, results[0].run
    assert results[0].label == "24 ['-s', 'game.txt']\n"
    assert [r.label for r in results[1:]] == ["0\n", "2\n", "4\n"]  # in order, whatever the worker


def test_install_hints_promise_make_setup_only_for_what_it_installs() -> None:
    # What `make setup` installs is the specs' setup_packages (tests/sandboxes/test_manifest.py).
    cpp = spec_for("cpp")
    assert cpp.install_hint("clang++-19") == "apt-get install clang-19 (or `make setup`)"
    assert cpp.install_hint("clang++-16") == "apt-get install clang-16"
    assert spec_for("java").install_hint("java") == "apt-get install default-jre-headless (or `make setup`)"
    assert spec_for("julia").install_hint("julia").startswith("not in Debian 12")


def test_one_java_file_naming_rule_for_placement_refactor_and_released_records() -> None:
    from pipeline.subsets.bg import to_program as bg_program
    from pipeline.subsets.programs import complete_program
    from sandboxes.languages.java import class_file_name
    from sources.surge_release import ReleasedRecord

    nested_first = (
        "class Outer {\n    public static class Node { int v; }\n}\n"
        "public final class Trees { public static void main(String[] a) {} }\n"
    )
    spec = spec_for("java")
    assert class_file_name(nested_first) == "Trees.java"  # the nested public class does not name the file
    assert spec.refactor_file_name(nested_first) == "Trees.java"
    assert spec.placed_files(Program.single("java", nested_first))[0][0] == "Trees.java"
    no_public = "class Solution { public static void main(String[] a) {} }\n"
    assert class_file_name(no_public) == "Solution.java"
    for to_program, subset in ((complete_program, "ml"), (bg_program, "bg")):
        record = ReleasedRecord(
            subset=subset, index=0, location="x", question=nested_first, gt="", language=Language.JAVA
        )
        plan = to_program(record)
        assert plan.program.files[0].path == "Trees.java"


SEEDED = [spec.language for spec in REGISTRY.values() if spec.seed_environment]


def test_a_spec_with_a_pinnable_seed_carries_a_program_that_follows_it() -> None:
    assert Language.PYTHON in SEEDED  # PYTHONHASHSEED: the one the audit's float sums need
    for spec in REGISTRY.values():
        assert bool(spec.seed_environment) == bool(spec.seed_test), spec.language


@pytest.mark.parametrize("language", SEEDED, ids=lambda lang: lang.value)
def test_a_pinned_seed_makes_its_runtime_repeat(backend: object, language: Language) -> None:
    """Unpinned, the seed test's output varies between runs; pinned, each value repeats, and two values
    give two outputs: the variable really reaches the runtime's seed."""
    spec = REGISTRY[language]
    if missing := [t for t in spec.tools(ExecutionSetting(), get_profile("default")) if find_tool(t) is None]:
        pytest.skip(f"needs `{missing[0]}` (install with `make setup`)")
    assert spec.seed_environment is not None
    program = Program.single(language, spec.seed_test)
    default = get_profile("default")
    pinned_to = [default.model_copy(update={"env": {spec.seed_environment: seed}}) for seed in ("0", "1")]
    asked = [
        RunRequest(program=program, profile=profile, limits=SMALL_LIMITS, repeats=repeats)
        for profile, repeats in [(default, 4), *((p, 2) for p in pinned_to)]
    ]
    assert len({r.run_id for r in asked}) == 3  # the pinned value is part of the run id
    results = {r.run_id: r for r in backend.run_batch(asked)}  # type: ignore[attr-defined]
    unpinned, *pinned = (results[r.run_id] for r in asked)
    assert unpinned.verdict is Verdict.OK and unpinned.distinct_outputs > 1, unpinned.run
    assert [(r.verdict, r.distinct_outputs) for r in pinned] == [(Verdict.OK, 1)] * 2
    assert pinned[0].label != pinned[1].label
