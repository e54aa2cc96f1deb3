"""The one exception hierarchy of the library. Only the CLI turns these into messages.

    SurgeError
    ├── ConfigurationError      bad flags, unknown profile/source/language names
    ├── InputError              a whole input file is unusable (missing, unreadable)
    ├── SandboxUnavailable      no safe way to execute here (bwrap missing, Docker stopped)
    ├── SourceError             a source cannot be pulled (no mirror, LFS pointers, bad commit)
    ├── EngineUnavailable       Prefect's API cannot be started or reached
    ├── StoreError              the Parquet store cannot be read or written (no store there, ...)
    │   ├── StoreWriteError     (pipeline.parts) a part could not be written: full disk, read-only folder
    │   └── CorruptPart         (pipeline.parts) a part file is not readable Parquet; names it
    ├── LLMError                the LLM endpoint failed after retries
    └── BudgetSpent             the run's --budget is spent: asking stops (not a failure: "done, but")

Every message says what to do about it (the ``hint``).
"""

from __future__ import annotations


class SurgeError(Exception):
    hint: str = ""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        if hint:
            self.hint = hint


class ConfigurationError(SurgeError):
    pass


class InputError(SurgeError):
    pass


class SandboxUnavailable(SurgeError):
    pass


class EngineUnavailable(SurgeError):
    pass


class SourceError(SurgeError):
    pass


class LLMError(SurgeError):
    pass


class BudgetSpent(SurgeError):
    """The run's budget is spent, so this request was not sent. Not an LLMError: nothing failed, and an
    item stopped by it is neither the model's failure nor the endpoint's (a rerun resumes it)."""


class StoreError(SurgeError):
    """The store cannot be read or written (wrong schema, unreadable part, ...)."""
