"""Each language declares the settings its toolchain takes (its spec's ``settings``), and the declaration
is honest both ways: what it takes reaches the command, what it refuses would not have (or, for a compiler,
would have run the program under another language's tool)."""

from __future__ import annotations

import pytest

from pipeline.programs import method_setting_for
from pipeline.records import EnvironmentProfile, ExecutionSetting, Language, Program
from sandboxes.languages import REGISTRY, LanguageSpec, parse_language, setting_refusal, spelled_standard

PROFILE = EnvironmentProfile(name="probe")
LEVELS = ("O0", "O1", "O2", "O3", "Os")
PROBE_FLAG = "-DSURGE_SETTING_PROBE"


def command(spec: LanguageSpec, setting: ExecutionSetting) -> list[str]:
    """The command a setting shapes: the compile command of a compiled language, else the run command."""
    program = Program.single(spec.language, spec.self_test)
    if spec.compiled:
        return spec.compile_argv(program, setting, PROFILE)
    return spec.run_argv(program, setting, PROFILE)


def probes(spec: LanguageSpec) -> dict[str, ExecutionSetting]:
    """One setting per part a setting can ask for."""
    return {
        "optimization": ExecutionSetting(optimization="O2"),
        "extra_flags": ExecutionSetting(extra_flags=(PROBE_FLAG,)),
        "relative_sources": ExecutionSetting(source_paths="relative"),
        "standards": ExecutionSetting(standard=(spec.settings.standards or ("c11",))[0]),
    }


@pytest.mark.parametrize("language", list(REGISTRY), ids=lambda lang: lang.value)
def test_each_part_a_language_takes_reaches_its_command_and_each_it_refuses_would_not(
    language: Language,
) -> None:
    spec = REGISTRY[language]
    plain = command(spec, ExecutionSetting())
    for part, setting in probes(spec).items():
        taken = bool(getattr(spec.settings, part))
        assert (setting_refusal(language, setting) is None) == taken, (part, setting)
        assert (command(spec, setting) != plain) == taken, f"{language}: {part} declared {taken}"
    for compiler in spec.settings.compilers:
        for named in (compiler, f"{compiler}-19"):
            setting = ExecutionSetting(compiler=named)
            assert setting_refusal(language, setting) is None
            assert command(spec, setting)[0] == named


@pytest.mark.parametrize("language", list(REGISTRY), ids=lambda lang: lang.value)
def test_no_language_takes_another_languages_compiler(language: Language) -> None:
    own = set(REGISTRY[language].settings.compilers)
    others = {c for spec in REGISTRY.values() for c in spec.settings.compilers} - own
    others |= {spec.default_tool for spec in REGISTRY.values() if spec.language is not language}
    for compiler in sorted(others - own):
        reason = setting_refusal(language, ExecutionSetting(compiler=compiler))
        assert reason is not None and f"cannot be built by {compiler!r}" in reason


def test_every_surge_dr_key_is_a_cpp_setting_and_no_other_languages() -> None:
    for compiler in ("g++", "clang++"):
        for standard in ("03", "11", "14", "17"):
            for level in LEVELS:
                key = ExecutionSetting.from_surge_key(f"{compiler}-C++{standard}--{level}")
                takers = [lang.value for lang in REGISTRY if setting_refusal(lang, key) is None]
                assert takers == ["cpp"], (key, takers)


def test_c_takes_gcc_and_clang_with_c_standards_only() -> None:
    assert (
        setting_refusal("c", ExecutionSetting(compiler="clang-14", standard="c11", optimization="O2")) is None
    )
    assert "C has no standard 'c++14'" in str(setting_refusal("c", ExecutionSetting(standard="c++14")))


@pytest.mark.parametrize("language", list(REGISTRY), ids=lambda lang: lang.value)
def test_a_spelling_with_a_standard_parses_as_its_language_and_names_a_standard_it_takes(
    language: Language,
) -> None:
    spec = REGISTRY[language]
    for spelling in spec.standard_spellings:
        assert parse_language(spelling.upper()) is language
        standard = spelled_standard(f" {spelling.upper()} ")
        assert standard == spelling and setting_refusal(language, ExecutionSetting(standard=standard)) is None
    assert spelled_standard(spec.language.value) is None  # its bare name names no standard


def test_only_a_spelling_with_its_standard_names_one() -> None:
    assert spelled_standard("C++14") == "c++14" and spelled_standard("c++17") == "c++17"
    assert spelled_standard("C++") is None and spelled_standard(None) is None
    assert spelled_standard("C11") is None  # C's standards are not spellings of C


def test_a_methods_setting_reaches_only_the_programs_that_can_take_it() -> None:
    # OJCode's method compiles its C++ with g++ -std=c++14; a refactored candidate in Python or Java must
    # run as usual (before, the build handed the setting to every candidate and RunRequest refused it).
    ojcode = ExecutionSetting.from_surge_key("g++-C++14--O0")
    cpp = Program(language=Language("cpp"), files=[{"path": "main.cpp", "content": "int main(){}"}])
    python = Program(language=Language("python"), files=[{"path": "main.py", "content": "print(1)"}])
    assert method_setting_for(cpp, ojcode) == ojcode
    assert method_setting_for(python, ojcode) == ExecutionSetting()
    assert method_setting_for(python, None) == ExecutionSetting()
