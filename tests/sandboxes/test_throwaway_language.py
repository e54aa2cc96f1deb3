"""A new language is one spec file plus one registry line: a throwaway one reaches every consumer.

`toysh` is a toy language whose programs are POSIX shell scripts run by `sh` (so it really runs under
bwrap), with a comment syntax of its own: `#` lines and `: <<'END' ... END` blocks (the shell's
here-document-to-the-null-command idiom). Its spec is written as a file, imported from that file, and
registered by the fixture, which removes it afterwards; nothing else is edited, not even records.py.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import leakage
from pipeline.records import ExecutionSetting, Language, Program, SourceItem, Verdict
from pipeline.refactor.extract import extract_code
from pipeline.refactor.methods import METHODS, file_name
from pipeline.stages.doctor import language_table
from sandboxes import languages
from sandboxes.languages import (
    REGISTRY,
    SELF_TEST_OUTPUT,
    LanguageSpec,
    manifest,
    parse_language,
    program_setting_refusal,
)
from sandboxes.profiles import get_profile
from tests.sandboxes.conftest import request

TOY = "toysh"
TOY_SPEC_FILE = """\
from pipeline.records import Language
from sandboxes.languages.base import LanguageSpec

SPEC = LanguageSpec(
    language=Language("toysh"),
    display_name="ToySh",
    aliases=("tsh", "toy-shell"),
    source_name="test.tsh",
    extensions=(".tsh",),
    default_tool="sh",
    apt_packages={"sh": "dash"},
    refactor_file="main.tsh",
    entry_hint="top-level commands",
    fence_tags=("toysh", "tsh"),
    line_comments=("#",),
    block_comments=((": <<'END'", "END"),),
    setup_packages=("dash",),
    image_family="toysh",
    image_packages={"bookworm": ("dash",)},
    self_test='echo "surge self-test"\\n',
)
"""


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    """A copy of sandboxes/languages/ with the one new file and the one new registry line."""
    root = tmp_path / "languages"
    shutil.copytree(Path(languages.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / f"{TOY}.py").write_text(TOY_SPEC_FILE)
    init = root / "__init__.py"
    registry_line = f"        lean4.SPEC,\n        {TOY}.SPEC,\n"
    init.write_text(init.read_text().replace("        lean4.SPEC,\n", registry_line))
    return root


@pytest.fixture
def toysh(spec_dir: Path) -> Iterator[LanguageSpec]:
    """The toy spec, imported from its file and registered for the test only."""
    module_spec = importlib.util.spec_from_file_location(f"surge_test_{TOY}", spec_dir / f"{TOY}.py")
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    spec: LanguageSpec = module.SPEC
    REGISTRY[spec.language] = spec
    try:
        yield spec
    finally:
        del REGISTRY[spec.language]


def test_aliases_parse_and_programs_validate_only_while_registered(toysh: LanguageSpec) -> None:
    assert parse_language("Toy-Shell") is Language(TOY) and parse_language(" tsh ") == TOY
    program = Program.single(parse_language("tsh"), "echo hi")
    assert program.language == TOY and program_setting_refusal(program, ExecutionSetting()) is None
    del REGISTRY[toysh.language]
    try:
        with pytest.raises(ValueError, match="unknown language 'tsh'"):
            parse_language("tsh")
        refusal = program_setting_refusal(program, ExecutionSetting())
        assert refusal is not None and refusal.startswith("unknown language 'toysh'")
    finally:
        REGISTRY[toysh.language] = toysh


def test_it_runs_under_bwrap(toysh: LanguageSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sandboxes import open_backend
    from sandboxes.compile_cache import CACHE_DIR_ENV
    from tests.conftest import require_tool

    require_tool("bwrap", "sh")
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    programs = [
        Program.single(TOY, toysh.self_test),
        Program.single(TOY, 'read name\necho "hello $name, $#"\n', argv=("a b", "c"), stdin="you\n"),
    ]
    with open_backend("bwrap") as backend:
        results = list(backend.run_batch([request(p) for p in programs]))
    assert [r.verdict for r in results] == [Verdict.OK, Verdict.OK], [r.run for r in results]
    assert results[0].label.strip() == SELF_TEST_OUTPUT
    assert results[1].label == "hello you, 2\n"
    assert results[1].run is not None and results[1].run.command[:2] == ("sh", "/app/test.tsh")
    assert results[0].language == TOY


def test_docker_maps_it_to_its_image_family(toysh: LanguageSpec) -> None:
    from sandboxes.backends.docker import image_for

    assert image_for(Language(TOY), get_profile("current")) == "surge/toysh:bookworm"


def test_the_refactor_names_fences_and_prompts_it(toysh: LanguageSpec) -> None:
    item = SourceItem(
        source="mceval",
        key="toysh/1",
        language=Language(TOY),
        upstream_repo="github.com/example/toy",
        upstream_commit="0" * 40,
        upstream_path="data/ToySh.jsonl",
        licence="MIT",
        text="echo 42",
    )
    values = METHODS["mceval"].values(item, Language(TOY))
    prompt_facts = (values["language"], values["fence"], values["entry_hint"])
    assert prompt_facts == ("ToySh", "toysh", "top-level commands")
    assert file_name(Language(TOY), "echo 42") == "main.tsh"
    assert extract_code("Here:\n```tsh\necho 42\n```\n", Language(TOY)).text == "echo 42\n"
    wrong = extract_code("```python\nprint(42)\n```\n", Language(TOY))
    assert wrong.kind == "wrong_language" and "toysh program is required" in wrong.problem
    assert "```toysh" in extract_code("no code here", Language(TOY)).problem


def test_the_leak_detector_reads_its_comment_syntax(toysh: LanguageSpec) -> None:
    source = ": <<'END'\nprints the answer 4242424242\nEND\necho $((2 * 2121212121))  # Output: 4242424242\n"
    # The audit (no language: every registered syntax) sees the toy block comment and the line comment.
    assert leakage.find_leaks(source, "4242424242") == [
        "comment line 4: # Output: 4242424242",
        "comment line 1: : <<'END' prints the answer 4242424242 END",
    ]
    assert leakage.split_comment("echo a//b  # Output: 4", Language(TOY)) == ("echo a//b  ", "# Output: 4")
    # The refactor's guard reads line by line: the opening `: <<'END'` is a comment, the `#` claim a leak.
    assert leakage.split_comment(": <<'END'", Language(TOY)) == ("", ": <<'END'")
    found = leakage.guard(source, Language(TOY), "4242424242\n")
    assert [(leak.kind, leak.line, leak.cleanable) for leak in found] == [("comment", 4, True)]
    assert leakage.clean_comments(source, Language(TOY), found).endswith("END\necho $((2 * 2121212121))\n")


def test_doctor_and_the_derived_lists_include_it(toysh: LanguageSpec, spec_dir: Path) -> None:
    from sandboxes.toolchains import toolchain_report

    row = {"language": TOY, "name": "ToySh", "aliases": ["tsh", "toy-shell"], "image_family": TOY}
    assert row in [language.model_dump() for language in language_table()]
    assert any(s.language == TOY and s.tool == "sh" for s in toolchain_report(get_profile("default")))
    assert languages.setup_packages()[-1] == "dash" and languages.image_families()[-1] == TOY
    # What `make setup` and `make images` read: the spec file and the registry line, without importing them.
    assert manifest.setup_packages(spec_dir) == list(languages.setup_packages())
    assert manifest.image_families(spec_dir) == list(languages.image_families())


def test_the_fixture_leaves_no_trace() -> None:
    assert TOY not in REGISTRY and TOY not in languages.image_families()
    with pytest.raises(ValueError):
        parse_language("tsh")
