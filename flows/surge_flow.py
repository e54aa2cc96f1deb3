"""The flow every surge flow is: Prefect's, with two differences.

- **Its run's parameters are serialized by pydantic's encoder.** Prefect serializes them with FastAPI's
  ``jsonable_encoder``, the one thing FastAPI was imported for in a command's process: ~0.13 s of CPU at
  each command's first flow run, on its critical path. Our flows take references (store paths, ids,
  counts) and pydantic records (a job's label, a build's configuration), which pydantic's own encoder
  turns into the same JSON; a value it cannot encode is stored as Prefect stores one: its type's name in
  angle brackets.
- **Its task runs carry no tags; the flow run carries the job's** (``Engine.tagged``), which the UI's
  filters find. A task run with tags asks the API for the tags' concurrency limits as it starts (Prefect
  remembers "none" for 5 s). With Prefect's SQLite database that request's transaction was refused
  ("database is locked", HTTP 503) when it met another write, as batches ended and the next ones started,
  and Prefect's client asked again only after a 2-s backoff: in one audit in two of the bench's mix, two
  batches waited ~2.2 s with a core idle (seen in the task runs' Pending-to-Running times).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect import Flow
from prefect.context import TagsContext
from pydantic_core import PydanticSerializationError, to_jsonable_python

P = ParamSpec("P")
R = TypeVar("R")


class SurgeFlow(Flow[P, R]):
    def serialize_parameters(self, parameters: dict[str, Any]) -> dict[str, Any]:
        return {name: jsonable(value) for name, value in parameters.items()}

    def with_options(self, **options: Any) -> SurgeFlow[P, R]:
        """Prefect's copy with other options is built as a plain ``Flow``: made one of ours again (the
        class adds no state, only the serializer)."""
        copy = super().with_options(**options)
        copy.__class__ = SurgeFlow
        return copy  # type: ignore[return-value]


def jsonable(value: Any) -> Any:
    try:
        return to_jsonable_python(value)
    except (PydanticSerializationError, ValueError, RecursionError):
        return f"<{type(value).__name__}>"


def surge_flow(name: str) -> Callable[[Callable[P, R]], SurgeFlow[P, R]]:
    """``@surge_flow("surge-run")``: as ``@flow(name=..., log_prints=False)``; our flows never print."""

    def decorate(function: Callable[P, R]) -> SurgeFlow[P, R]:
        @functools.wraps(function)
        def body(*args: P.args, **kwargs: P.kwargs) -> R:
            with TagsContext(current_tags=set()):  # the flow run is tagged; its task runs are not
                return function(*args, **kwargs)

        # Prefect validates the parameters against the signature, its annotations resolved in the module of
        # the function it is given (this one, where the flow's parameter types are not defined): so the
        # function's own signature goes with it, resolved where the function was written.
        body.__signature__ = inspect.signature(function, eval_str=True)  # type: ignore[attr-defined]
        return SurgeFlow(fn=body, name=name, log_prints=False)

    return decorate
