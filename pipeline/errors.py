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
    │   └── PromptTooLong       the prompt alone is longer than the model's context: the item's failure
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


class PromptTooLong(LLMError):
    """The endpoint refused a prompt longer than the model's whole context. Asking again never helps, and
    the endpoint did nothing wrong: a step that knows whose failure is whose (predict, the repair loop)
    records it as the item's outcome; anywhere else it is handled as the LLMError it also is."""

    def __init__(self, message: str, prompt_tokens: int, context_tokens: int) -> None:
        super().__init__(message, hint="the model cannot take this item: a model with a longer context can")
        self.prompt_tokens = prompt_tokens
        self.context_tokens = context_tokens


class BudgetSpent(SurgeError):
    """The run's budget is spent, so this request was not sent. Not an LLMError: nothing failed, and an
    item stopped by it is neither the model's failure nor the endpoint's (a rerun resumes it)."""


class StoreError(SurgeError):
    """The store cannot be read or written (wrong schema, unreadable part, ...)."""
