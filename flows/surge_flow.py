"""The flow every surge flow is: Prefect's, its run's parameters serialized by pydantic's encoder.

Prefect stores a flow run's parameters after serializing them with FastAPI's ``jsonable_encoder``, the
one thing FastAPI is imported for in a command's process: ~0.13 s of CPU at each command's first flow
run, on its critical path. Our flows take references (store paths, ids, counts) and pydantic records
(a job's label, a build's configuration), which pydantic's own encoder turns into the same JSON; a value
it cannot encode is stored as Prefect stores one: its type's name in angle brackets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect import Flow
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
        return SurgeFlow(fn=function, name=name, log_prints=False)

    return decorate
