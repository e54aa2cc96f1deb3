"""Docs that cannot rot: every command has help and an example that parses."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from pipeline.cli import COMMANDS, build_parser, load_command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_and_a_parsable_example(name: str) -> None:
    module = load_command(name)
    assert module.HELP.strip() and module.EXAMPLE.startswith(f"surge {name}")
    args = build_parser().parse_args(shlex.split(module.EXAMPLE)[1:])
    assert args.command == name


def test_every_command_offers_json() -> None:
    parser = build_parser()
    for name in COMMANDS:
        example = shlex.split(load_command(name).EXAMPLE)[1:]
        assert parser.parse_args([*example, "--json"]).json is True


def test_the_readme_lists_every_command() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    missing = [name for name in COMMANDS if f"| `surge {name}" not in readme]
    assert missing == []


REPOSITORY = Path(__file__).resolve().parents[2]
PREFECT_DOC = REPOSITORY / "docs" / "prefect.md"


def quoted_commands(markdown: str, program: str) -> list[list[str]]:
    """Every `program ...` command the page quotes: in code blocks (a line each, after any VAR=value and
    before a `#` comment or a trailing `&`) and in inline code."""
    blocks = re.findall(r"```\n(.*?)```", markdown, flags=re.S)
    lines = [line for block in blocks for line in block.splitlines()]
    lines += re.findall(r"`([^`\n]+)`", re.sub(r"```\n.*?```", "", markdown, flags=re.S))
    found = []
    for line in lines:
        words = shlex.split(line.split(" #")[0].rstrip(" &"))
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]
        if words[:1] == [program] and len(words) > 1:
            found.append(words[1:])
    return found


def test_every_surge_command_the_prefect_page_quotes_parses() -> None:
    commands = quoted_commands(PREFECT_DOC.read_text(encoding="utf-8"), "surge")
    assert len(commands) >= 5, commands
    parser = build_parser()
    for argv in commands:
        if len(argv) == 1:  # a command named in the prose: `surge run`
            assert argv[0] in COMMANDS, argv
            continue
        assert parser.parse_args(argv).command == argv[0], argv  # an unknown command or flag exits 2


def test_every_prefect_command_the_prefect_page_quotes_exists_with_its_flags() -> None:
    import subprocess
    import sys

    prefect = Path(sys.executable).with_name("prefect")

    def help_of(*words: str) -> str:
        env = {**os.environ, "COLUMNS": "200"}
        shown = subprocess.run([str(prefect), *words, "--help"], capture_output=True, text=True, env=env)
        assert shown.returncode == 0, (words, shown.stderr[-500:])
        return shown.stdout

    commands = quoted_commands(PREFECT_DOC.read_text(encoding="utf-8"), "prefect")
    assert {"server", "config", "profile", "version"} <= {argv[0] for argv in commands}, commands
    for argv in {tuple(argv) for argv in commands}:
        words = [w for w in argv if not w.startswith("-") and w.isidentifier() and w.islower()]
        for depth, word in enumerate(words):  # each word a command its parent's help lists
            assert re.search(rf"^\W*{word}\s", help_of(*words[:depth]), flags=re.M), argv
        flags = [w.split("=")[0] for w in argv if w.startswith("--")]
        if flags:
            shown = help_of(*words)
            assert all(flag in shown for flag in flags), (argv, shown[-2000:])


def test_the_readme_links_the_prefect_page() -> None:
    assert "docs/prefect.md" in (REPOSITORY / "README.md").read_text(encoding="utf-8")
