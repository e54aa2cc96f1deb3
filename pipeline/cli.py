"""`surge`: the command line. Thin: parse the flags into a stage's options, call the stage, render its result.

Each command lives in ``pipeline/commands/<name>.py`` and exposes:

    HELP: str                          one line for `surge --help`
    EXAMPLE: str                       one runnable example, shown in its --help
    add_arguments(parser) -> None
    options_of(args) -> Options        the stage's typed options (pipeline/stages/options.py)
    STAGE(options, observer=...)       the stage function (pipeline/stages/<name>.py): a typed result
    render(result, options) -> str     the result as plain text
    screen(result, options) -> blocks  optional: the result as rich tables for a terminal

(A command with no stage of its own, `doctor` and `store`, exposes ``execute(args) -> dict`` instead.)

The CLI prints the result as text (``render``; on a terminal ``screen`` drawn with rich,
pipeline/commands/display.py), or as JSON with ``--json`` (the result's own data), and is the only place
that turns library exceptions into messages (with the hint that says how to fix the problem).

Exit codes, one rule for every command. A program's own failure (compile error, crash, limit)
is a verdict, never an error. Errors are one line each on stderr, ``surge CMD: error: WHAT (fix: HOW)``,
never a traceback:

    0    everything asked for was done
    1    something of ours failed during the work (a batch, a sandbox, the store): what finished is kept;
         the command's summary lists them under ``failures`` ({"reason", "fix"}) and they are printed
    2    refused before any work: bad flags, configuration or input (nothing was changed but quarantine)
    3    the command's own "done, but" code, e.g. `surge run --strict` with bad input lines
    70   a bug of ours: one line; SURGE_DEBUG=1 shows the traceback
    130  interrupted: finished rows are kept, run the command again to resume

A summary that states an ``exit_code`` (and any summary of a command exiting non-zero) states the code the
process exits with, in --json and in text.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import json
import os
import signal
import sys
import traceback
from types import ModuleType
from typing import Any, NoReturn

from flows.engine import FLOW_COMMANDS, engine_for
from flows.runtime import opt_out_of_telemetry
from pipeline.errors import SurgeError
from pipeline.stopping import stop_everything

# name -> module; one line per command (a new command is one new module plus one line here).
COMMANDS: dict[str, str] = {
    "run": "pipeline.commands.run",
    "stats": "pipeline.commands.stats",
    "show": "pipeline.commands.show",
    "doctor": "pipeline.commands.doctor",
    "store": "pipeline.commands.store",
    "audit": "pipeline.commands.audit",
    "pull": "pipeline.commands.pull",
    "refactor": "pipeline.commands.refactor",
    "review": "pipeline.commands.review",
    "export": "pipeline.commands.export",
    "score": "pipeline.commands.score",
    "build": "pipeline.commands.build",
    "predict": "pipeline.commands.predict",
}

Summary = dict[str, Any]

FAILED_EXIT_CODE = 1
REFUSED_EXIT_CODE = 2
BUG_EXIT_CODE = 70
INTERRUPTED_EXIT_CODE = 130


def load_command(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


class OneLineParser(argparse.ArgumentParser):
    """A bad flag is refused like every other error: one line, ``surge CMD: error: WHAT (fix: HOW)``, exit 2
    (argparse's default prints the whole usage block first)."""

    def error(self, message: str) -> NoReturn:
        reason = " ".join(message.split())
        print(f"{self.prog}: error: {reason} (fix: see `{self.prog} --help`)", file=sys.stderr)
        sys.exit(REFUSED_EXIT_CODE)


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The example epilog kept as written, and every option's default shown: appended as
    ``(default: X)`` unless its help already names the default, or there is none to name (a switch that is
    off, a value left unset)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        # identity, not ==: a default of 0 (`--seed`) is a value to show, a switch's False is not
        unset = any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS)) or (
            action.default == []
        )
        if unset or "default" in text or not action.option_strings or text == argparse.SUPPRESS:
            return action.help
        return f"{text} (default: %(default)s)"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; given the words it is to parse, of the command they name alone.
    Filling a command's flags imports its module and its stage's registries: all thirteen cost ~0.2 s of
    CPU at every start, for a parser that reads one. Help, or an unknown first word, gets them all (the
    error lists the commands)."""
    parser = OneLineParser(
        prog="surge",
        description="Build, run and audit execution-prediction benchmarks (SURGE).",
        epilog="Run `surge COMMAND --help` for a command's options and an example.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands_named(argv):
        module = load_command(name)
        sub = commands.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=f"example:\n  {module.EXAMPLE}",
            formatter_class=HelpFormatter,
        )
        sub.add_argument("--json", action="store_true", help="print a machine-readable summary on stdout")
        module.add_arguments(sub)
        sub.set_defaults(_module=module)
    return parser


def commands_named(argv: list[str] | None) -> list[str]:
    first = argv[0] if argv else None
    return [first] if first in COMMANDS else list(COMMANDS)


def print_summary(summary: Summary, as_json: bool) -> None:
    text = summary.pop("_text", None)
    screen = summary.pop("_screen", None)
    if as_json:
        print(json.dumps(summary, indent=2, sort_keys=True, default=str))
        return
    if screen:
        from pipeline.commands.display import draw, on_terminal

        if on_terminal(sys.stdout):  # rich's tables for a person; the plain lines for pipes and logs
            draw(screen, sys.stdout, int(summary.get("exit_code", 0)))
            return
    if text:
        print(text)
        return
    for key, value in summary.items():
        print(f"{key}: {value}")


def error_line(command: str, reason: str, fix: str = "") -> str:
    reason = " ".join(reason.split())  # one line, whatever the message held
    return f"surge{' ' if command else ''}{command}: error: {reason}" + (
        f" (fix: {' '.join(fix.split())})" if fix else ""
    )


def main(argv: list[str] | None = None) -> int:
    try:
        words = sys.argv[1:] if argv is None else argv
        args = build_parser(words).parse_args(words)
    except SystemExit as exited:  # --help (0), or a flag refused in one line (2): the code, as any command's
        return exited.code if isinstance(exited.code, int) else REFUSED_EXIT_CODE
    except SurgeError as error:  # a bad plug-in, met while a registry fills a command's choices
        command = words[0] if words and words[0] in COMMANDS else ""
        print(error_line(command, str(error), error.hint), file=sys.stderr)
        return REFUSED_EXIT_CODE
    try:
        with engine_for(args.command):
            summary = execute(args)
    except SurgeError as error:
        print(error_line(args.command, str(error), error.hint), file=sys.stderr)
        return REFUSED_EXIT_CODE
    except KeyboardInterrupt:
        return interrupted(args.command)
    except Exception as error:  # noqa: BLE001 - a bug of ours: one line, the traceback on request
        if caused_by_an_interrupt(error):
            return interrupted(args.command)
        if os.environ.get("SURGE_DEBUG"):
            traceback.print_exc()
        fix = "set SURGE_DEBUG=1 for the traceback and report it"
        print(error_line(args.command, f"internal error: {error!r}", fix), file=sys.stderr)
        return BUG_EXIT_CODE
    return finish(args, summary)


def interrupted(command: str) -> int:
    print(f"surge {command}: interrupted; finished rows are kept, run again to resume", file=sys.stderr)
    return INTERRUPTED_EXIT_CODE


def caused_by_an_interrupt(error: BaseException) -> bool:
    """An interrupt that reached us wrapped: a Ctrl-C that lands inside a pydantic serializer comes out
    as a PydanticSerializationError caused by the KeyboardInterrupt (an interrupted `surge run` exited 70,
    "internal error", instead of 130)."""
    seen: BaseException | None = error
    for _ in range(16):  # bounded: a cause chain is short, and a cycle must not hang the exit
        if seen is None:
            return False
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__
    return False


def execute(args: argparse.Namespace) -> Summary:
    """The command's work: its stage on the options of the flags (the same function and options a library
    caller uses, pipeline/api.py), and the result with its renderings for ``finish``."""
    module = args._module
    if not hasattr(module, "STAGE"):
        return module.execute(args)  # type: ignore[no-any-return]
    from pipeline.commands.display import LiveObserver

    options = module.options_of(args)
    # A command whose stage tells a person something (review serve: the page's address) has its own.
    observer = module.observer() if hasattr(module, "observer") else LiveObserver(sys.stderr)
    try:
        result = module.STAGE(options, observer=observer)
    finally:
        if isinstance(observer, LiveObserver):
            observer.close()  # a live bar stops (its cursor back) whatever ended the stage
    summary: Summary = result.model_dump(mode="json")
    if not args.json:  # a script reading --json gets the data alone: nothing is rendered for it
        summary["_text"] = module.render(result, options)
        if hasattr(module, "screen"):
            summary["_screen"] = module.screen(result, options)
    return summary


def finish(args: argparse.Namespace, summary: Summary) -> int:
    """Print the summary, then each failure of ours as one line; the exit code follows the rule above."""
    failures = summary.get("failures", [])
    exit_code = FAILED_EXIT_CODE if failures else int(summary.get("exit_code", 0))
    # The summary says the code the process exits with: a script reading `--json` and one reading $?
    # never disagree (a job with failed batches said "exit_code": 0 and exited 1).
    if exit_code or "exit_code" in summary:
        summary["exit_code"] = exit_code
    if exit_code and summary.get("_text"):
        summary["_text"] += f"\nexit code         {exit_code}"
    try:
        print_summary(summary, args.json)
        sys.stdout.flush()
    except BrokenPipeError:  # `surge stats | head`: the reader left; the work itself is done and stored
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for failure in failures:
        print(error_line(args.command, failure["reason"], failure.get("fix", "")), file=sys.stderr)
    return exit_code


def entry() -> NoReturn:
    """The `surge` executable: ``main``, then a quick exit."""
    opt_out_of_telemetry()
    signal.signal(signal.SIGINT, stop_on_interrupt)
    argv = sys.argv[1:]
    if not (argv[:1] and argv[0] in FLOW_COMMANDS and not {"-h", "--help"} & set(argv)):
        exit_now(main(argv))
    from flows.engine import Engine
    from pipeline.schema import skip_pyarrows_pandas_probe

    skip_pyarrows_pandas_probe()
    # The command's engine, opened first of all so that its API boots while the command imports and
    # parses; ``main`` runs the command with it, and closing it stops the API, used or not (a refused
    # command, nothing left to run). If it cannot start (an unwritable state folder), the command opens
    # its own and reports why, as one line.
    with contextlib.ExitStack() as opened:
        with contextlib.suppress(SurgeError):
            opened.enter_context(Engine()).start_api()
        code = main(argv)
    exit_now(code)


def stop_on_interrupt(signum: int, frame: object) -> None:
    """Ctrl-C: every sandboxed program of the command stops now (pipeline/stopping.py), and the main
    thread unwinds as on any KeyboardInterrupt."""
    stop_everything()
    raise KeyboardInterrupt


def exit_now(code: int) -> NoReturn:
    """Exit without the interpreter's teardown: run the exit hooks (Prefect's, the local API server's
    stop, logging's flush), flush the standard streams, and leave. Freeing a heap the size of Prefect's,
    object by object, took ~0.9 s at the end of every command on a 2-core machine; nothing of ours needs
    it (every store write is closed by then)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader that left, a closed stream: nothing lost
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
