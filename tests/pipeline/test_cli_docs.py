"""Docs that cannot rot: every command has help and an example that parses."""

from __future__ import annotations

import shlex

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
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    missing = [name for name in COMMANDS if f"| `surge {name}" not in readme]
    assert missing == []
