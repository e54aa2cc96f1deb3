"""`import surge`: the Python API (pipeline/api.py, docs/api.md) under the command's own name.

Every stage is a function here (`surge.run`, `surge.build`, `surge.audit`, `surge.export`, `surge.score`,
`surge.stats`, `surge.show`, `surge.predict`, `surge.pull`, `surge.refactor`, `surge.review`), taking typed
options and returning a typed result. Importing it changes nothing in the caller's process; each function
configures what it needs (Prefect's settings) inside the call and restores the environment when it returns.
"""

from pipeline import api
from pipeline.api import *  # noqa: F403 - the API's names, listed once in its __all__
from pipeline.errors import SurgeError

__all__ = [*api.__all__, "SurgeError"]
