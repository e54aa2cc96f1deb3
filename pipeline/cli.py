"""`surge`: the command line. Thin: parse, call a flow or library function, print a summary.

Each command lives in ``pipeline/commands/<name>.py`` and exposes:

    HELP: str                      one line for `surge --help`
    EXAMPLE: str                   one runnable example, shown in its --help
    add_arguments(parser) -> None
    execute(args) -> Summary       a dict of counts, figures and paths written

The CLI prints the summary as text, or as JSON with ``--json``, and is the only place that turns
library exceptions into messages (with the hint that says how to fix the problem).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from types import ModuleType
from typing import Any

from pipeline.errors import SurgeError

# name -> module; one line per command (a new command is one new module plus one line here).
COMMANDS: dict[str, str] = {
    "run": "pipeline.commands.run",
    "stats": "pipeline.commands.stats",
    "doctor": "pipeline.commands.doctor",
    "store": "pipeline.commands.store",
    "audit": "pipeline.commands.audit",
    "pull": "pipeline.commands.pull",
    "refactor": "pipeline.commands.refactor",
    "review": "pipeline.commands.review",
    "export": "pipeline.commands.export",
}

Summary = dict[str, Any]


def load_command(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="surge",
        description="Build, run and audit execution-prediction benchmarks (SURGE).",
        epilog="Run `surge COMMAND --help` for a command's options and an example.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = load_command(name)
        sub = commands.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=f"example:\n  {module.EXAMPLE}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
        module.add_arguments(sub)
        sub.set_defaults(_module=module)
    return parser


def print_summary(summary: Summary, as_json: bool) -> None:
    text = summary.pop("_text", None)
    if as_json:
        print(json.dumps(summary, indent=2, sort_keys=True, default=str))
        return
    if text:
        print(text)
        return
    for key, value in summary.items():
        print(f"{key}: {value}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        summary = args._module.execute(args)
    except SurgeError as error:
        message = f"surge {args.command}: error: {error}"
        if error.hint:
            message += f"\n  how to fix: {error.hint}"
        print(message, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"surge {args.command}: interrupted; finished rows are kept, run again to resume", file=sys.stderr
        )
        return 130
    exit_code = int(summary.get("exit_code", 0)) if isinstance(summary, dict) else 0
    try:
        print_summary(summary, args.json)
        sys.stdout.flush()
    except BrokenPipeError:  # `surge stats | head`: the reader left; the work itself is done and stored
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
