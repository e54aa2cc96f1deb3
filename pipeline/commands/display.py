"""A summary as a person reads it on a terminal: rich tables. A command puts the blocks of its summary
under ``_screen`` (lines and ``Table`` records: data, no rich in the command); the CLI draws them with rich
when stdout is a terminal, and prints the command's plain ``_text`` otherwise (pipes, CI logs: no ANSI
codes, the lines scripts and tests parse), and neither with ``--json``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from pipeline.observe import PROGRESS, StageEvent


@dataclass(frozen=True)
class Table:
    """Columns and rows; the columns at the ``figures`` indexes (by default all but the first) are figures,
    aligned right."""

    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    title: str = ""
    figures: Sequence[int] | None = None
    notes: list[str] = field(default_factory=list)  # lines under the table (causes, hints)


def on_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a stream without a terminal's notion, or closed
        return False


def key_values(pairs: Sequence[tuple[str, Any]], title: str = "") -> Table:
    """A two-column table of names and values (a run's figures, a phase's facts)."""
    return Table(columns=("", ""), rows=[(name, value) for name, value in pairs], title=title, figures=())


def draw(blocks: Sequence[str | Table], stream: TextIO, exit_code: int = 0) -> None:
    """Each block with rich: text as it is written (never read as rich markup: a program's output may
    hold ``[red]``), tables boxed with their titles."""
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, highlight=False, soft_wrap=False)
    for block in blocks:
        console.print(rich_table(block) if isinstance(block, Table) else Text(block))
    if exit_code:
        console.print(Text(f"exit code {exit_code}", style="bold red"))


def rich_table(table: Table) -> Any:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text

    headless = not any(table.columns)
    drawn = RichTable(
        box=None if headless else box.SIMPLE_HEAD,
        show_header=not headless,
        pad_edge=False,
    )
    for index, name in enumerate(table.columns):
        right = index in table.figures if table.figures is not None else index > 0
        drawn.add_column(
            name, justify="right" if right else "left", style="bold" if headless and not index else None
        )
    for row in table.rows:
        drawn.add_row(*(Text("-" if value is None else str(value)) for value in row))
    from rich.console import Group

    # The title on its own line: rich's title wraps to the table's width ("runs by / language and ...").
    title = [Text(table.title, style="bold")] if table.title else []
    return Group(*title, drawn, *(Text(note) for note in table.notes))


class LiveObserver:
    """The CLI's observer of a stage (pipeline/observe.py): the counts of its long work drawn as bars on
    the stream (pipeline/commands/progress.py); a stage's own steps are news a person need not read, so
    this prints them only with SURGE_VERBOSE set. ``close`` stops any bar still live."""

    def __init__(self, stream: TextIO) -> None:
        from pipeline.commands.progress import Bars

        self.stream = stream
        self.bars = Bars(stream)

    def notify(self, event: StageEvent) -> None:
        import os

        if event.step == PROGRESS:
            self.bars.update(event)
        elif os.environ.get("SURGE_VERBOSE"):
            print(f"surge {event.stage}: {event.step} {event.detail}".rstrip(), file=self.stream, flush=True)

    def close(self) -> None:
        self.bars.close()
