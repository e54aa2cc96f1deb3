"""What a stage tells whoever watches it while it works.

A stage reports its steps, and its long work's counts, as events to an ``Observer``; the library's
default draws nothing, and the CLI's draws them for a person (pipeline/commands/display.py: its progress
bars, pipeline/commands/progress.py). An observer that raises stops nothing: the events are news, never
part of the work.

Core, so that the flows below the stages can count their work into the same observer: a stage that runs
a flow does so ``watched_by(observer)``, and the flow's counters (flows/progress.py) send what they
count to ``watcher()``. The observer travels in a context variable, never as a flow's parameter (a flow
takes references only) and never through the process's state, so two calls from two threads of one
notebook each reach their own observer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

PROGRESS = "progress"  # the step of a count's event


class Tally(BaseModel):
    """One count of a stage's work: ``items 3/8`` (``total`` None: a count with no known end, ``items
    412``); ``lost`` are units that ended without being done (a failed batch's), named by ``lost_as``."""

    model_config = ConfigDict(frozen=True)

    name: str
    done: int = 0
    total: int | None = None
    lost: int = 0
    lost_as: str = "failed"

    def share(self) -> float | None:
        if self.total is None:
            return None
        return min(1.0, (self.done + self.lost) / self.total) if self.total else 1.0

    def text(self) -> str:
        of = "" if self.total is None else f"/{self.total}"
        lost = f", {self.lost} {self.lost_as}" if self.lost else ""
        return f"{self.name} {self.done}{of}{lost}"


class StageEvent(BaseModel):
    """One step of a stage: which stage, what happened (``started``, ``finished``, a part of the work such
    as a subset, or ``progress``: its counts now), and a short detail."""

    model_config = ConfigDict(frozen=True)

    stage: str
    step: str
    detail: str = ""
    notice: bool = Field(
        default=False, description="for a person to read, not progress (an address, a warning)"
    )
    tallies: tuple[Tally, ...] = Field(default=(), description="progress: the counts, as they stand")
    share: float = Field(default=0.0, ge=0.0, le=1.0, description="progress: how much of the work is done")
    finished: bool = Field(default=False, description="progress: this work is over (its last event)")
    paced_from: float | None = Field(
        default=None,
        description="progress: when the counted work began (time.monotonic, this process); None: the "
        "pace is the command's own, head start included",
    )


class Observer(Protocol):
    """Receives a stage's events as they happen (from the stage's thread, or a task's for counts)."""

    def notify(self, event: StageEvent) -> None: ...


class Silent:
    """The library's default: nothing is drawn or printed."""

    def notify(self, event: StageEvent) -> None:
        return None


def tell(observer: Observer | None, stage: str, step: str, detail: str = "", notice: bool = False) -> None:
    """Send an event to the observer, if there is one; an observer's own error never stops the stage."""
    send(observer, StageEvent(stage=stage, step=step, detail=detail, notice=notice))


def send(observer: Observer | None, event: StageEvent) -> None:
    """``event`` to the observer, if there is one; its error never stops the work."""
    if observer is None:
        return
    try:
        observer.notify(event)
    except Exception:  # noqa: BLE001 - a display that fails must not fail the work it displays
        return


_WATCHER: ContextVar[Observer | None] = ContextVar("surge_stage_observer", default=None)


@contextmanager
def watched_by(observer: Observer | None) -> Iterator[None]:
    """The work inside (a stage's flows) counts into ``observer``."""
    token = _WATCHER.set(observer)
    try:
        yield
    finally:
        _WATCHER.reset(token)


def watcher() -> Observer | None:
    """The observer of the stage this work runs for, if any (read where a flow's counter is made)."""
    return _WATCHER.get()
