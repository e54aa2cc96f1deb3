"""One meaning per flag across commands, and help that shows every default."""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

import pytest

from pipeline.cli import COMMANDS, build_parser


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def options_by_flag() -> dict[str, dict[str, argparse.Action]]:
    """flag -> {command: its action}, for every option of every command."""
    found: dict[str, dict[str, argparse.Action]] = defaultdict(dict)
    for name, parser in command_parsers().items():
        for action in parser._actions:
            for flag in action.option_strings:
                found[flag][name] = action
    return found


def kind(action: argparse.Action) -> tuple[object, ...]:
    """What a flag means to the parser: how it is given (once, repeatable, a switch), what it accepts."""
    choices = frozenset(action.choices) if action.choices is not None else None  # the values, not their order
    parse = getattr(action.type, "__name__", action.type)  # bounded_int(1, 9) names its range
    return (type(action).__name__, parse, choices, action.nargs)


SHARED = ("--workers", "--backend", "--profile", "--store", "--unsafe", "--batch-size", "--repeats")


@pytest.mark.parametrize("flag", SHARED)
def test_a_shared_flag_is_given_and_accepted_alike_in_every_command(flag: str) -> None:
    commands = options_by_flag()[flag]
    assert len(commands) >= 2, f"{flag} is no longer shared: drop it from SHARED"
    kinds = {name: kind(action) for name, action in commands.items()}
    assert len(set(kinds.values())) == 1, kinds


def test_every_flag_in_two_commands_has_one_kind() -> None:
    """Beyond the list above: a flag two commands share takes the same values the same way in both."""
    differing = {
        flag: {name: kind(action) for name, action in commands.items()}
        for flag, commands in options_by_flag().items()
        if len(commands) > 1 and len({kind(action) for action in commands.values()}) > 1
    }
    assert differing == {}


def test_backend_choices_come_from_one_place() -> None:
    from sandboxes.backends.registry import names

    for name, action in options_by_flag()["--backend"].items():
        assert tuple(action.choices or ()) == names(), name


def test_audits_old_backend_name_still_parses() -> None:
    args = build_parser().parse_args(["audit", "dataset/", "--backend", "auto"])
    assert args.backend == "bwrap"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_every_default(name: str) -> None:
    """Each option with a default (not a switch that is off, not a value left unset) names it in --help."""
    parser = command_parsers()[name]
    formatter = parser._get_formatter()
    for action in parser._actions:
        unset = any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS))
        if not action.option_strings or unset or action.default == []:
            continue
        shown = " ".join(formatter._expand_help(action).split()) if action.help else ""
        assert f"default: {action.default}" in shown, (action.option_strings, shown)


def test_help_keeps_the_example_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["build", "--help"])
    out = capsys.readouterr().out
    assert "example:\n  surge build sc tc --n 20" in out  # as written, not refilled
    assert "(default: 0)" in " ".join(out.split())  # --seed


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_has_no_unfilled_placeholder(name: str) -> None:
    """A help string that forgot its f-prefix shows `{NAME}` to the user (build's --batch-size once did)."""
    parser = command_parsers()[name]
    formatter = parser._get_formatter()
    for action in parser._actions:
        shown = formatter._expand_help(action) if action.help else ""
        assert not re.search(r"\{[A-Za-z_][A-Za-z_0-9]*\}", shown), (action.option_strings, shown)


def test_a_command_loads_its_own_module_alone_and_help_loads_them_all() -> None:
    """A fresh interpreter: `surge stats` imports no other command's module (each costs CPU at every
    start); `surge --help` and an unknown command still name every command."""
    import subprocess
    import sys

    probe = (
        "import sys, contextlib\n"
        "from pipeline.cli import COMMANDS, build_parser\n"
        "with contextlib.suppress(SystemExit):\n"
        "    build_parser(sys.argv[1:]).parse_args(sys.argv[1:])\n"
        "print(sorted(n for n, m in COMMANDS.items() if m in sys.modules))\n"
    )

    def loaded(*words: str) -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", probe, *words], capture_output=True, text=True, check=True
        )
        return done.stdout.strip().splitlines()[-1], done.stdout + done.stderr

    assert loaded("stats", "--json")[0] == "['stats']"
    everything = str(sorted(COMMANDS))
    shown, usage = loaded("--help")
    assert shown == everything and all(name in usage for name in COMMANDS)
    shown, refusal = loaded("no-such-command")
    assert shown == everything and all(name in refusal for name in COMMANDS)
