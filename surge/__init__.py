"""`import surge`: the Python API (pipeline/api.py, docs/api.md) under the command's own name.

Every stage is a function here (`surge.run`, `surge.build`, `surge.audit`, `surge.export`, `surge.score`,
`surge.stats`, `surge.show`, `surge.predict`, `surge.pull`, `surge.refactor`, `surge.review`,
`surge.doctor`), taking typed options and returning a typed result. Importing it changes nothing in the
caller's process, and stays light: a stage's module (and the store's pyarrow) loads when first used.
"""

from typing import Any

from pipeline import api
from pipeline.errors import SurgeError

__all__ = [*api.__all__, "SurgeError"]


def __getattr__(name: str) -> Any:
    """The API's names, each looked up in pipeline.api when first used."""
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
