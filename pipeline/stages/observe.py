"""What a stage tells whoever watches it while it works.

A stage reports its progress as events to an ``Observer``; the library's default draws nothing, and the
CLI's draws them for a person (pipeline/commands/display.py). An observer that raises stops nothing: the
events are news, never part of the work.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field


class StageEvent(BaseModel):
    """One step of a stage: which stage, what happened (``started``, ``finished``, or a part of the
    work such as a subset), and a short detail."""

    model_config = ConfigDict(frozen=True)

    stage: str
    step: str
    detail: str = ""
    notice: bool = Field(
        default=False, description="for a person to read, not progress (an address, a warning)"
    )


class Observer(Protocol):
    """Receives a stage's events as they happen (from the stage's thread)."""

    def notify(self, event: StageEvent) -> None: ...


class Silent:
    """The library's default: nothing is drawn or printed."""

    def notify(self, event: StageEvent) -> None:
        return None


def tell(observer: Observer | None, stage: str, step: str, detail: str = "", notice: bool = False) -> None:
    """Send an event to the observer, if there is one; an observer's own error never stops the stage."""
    if observer is None:
        return
    try:
        observer.notify(StageEvent(stage=stage, step=step, detail=detail, notice=notice))
    except Exception:  # noqa: BLE001 - a display that fails must not fail the work it displays
        return
