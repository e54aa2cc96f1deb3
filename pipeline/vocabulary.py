"""The words records and sandboxes share, below both: a language's name and the default backend's name.

Records are written in these words and the language registry's specs (sandboxes/languages) too; keeping
the words here, under both, is what lets neither import the other (tests/architecture/
test_no_import_cycles.py). Which languages may run is the registry's to say, where programs enter.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

DEFAULT_BACKEND = "bwrap"  # the local sandbox: this machine's toolchains under bubblewrap


class Language(str):
    """A sandbox language: an open string type, so a new language is one spec in ``sandboxes/languages/``
    plus one registry line, with no edit here. Which languages exist is the registry's to say
    (``sandboxes.languages.parse_language``, ``program_setting_refusal``), where programs enter and
    before a sandbox runs them; a Program of an unregistered language is a valid record nothing runs.

    The constants below are the languages the pipeline names in code. Instances are interned, so
    ``Language("cpp") is Language.CPP`` holds as it did for the enum this replaces; pydantic fields typed
    ``Language`` accept and serialise plain strings.
    """

    __slots__ = ()
    _interned: ClassVar[dict[str, Language]] = {}

    C: ClassVar[Language]
    CPP: ClassVar[Language]
    CSHARP: ClassVar[Language]
    JAVA: ClassVar[Language]
    RUST: ClassVar[Language]
    PYTHON: ClassVar[Language]
    JAVASCRIPT: ClassVar[Language]
    JULIA: ClassVar[Language]
    LEAN4: ClassVar[Language]

    def __new__(cls, value: str) -> Language:
        if not isinstance(value, str) or not value:
            raise ValueError(f"a language is a non-empty string, not {value!r}")
        text = str(value)
        found = cls._interned.get(text)
        if found is None:
            found = cls._interned[text] = super().__new__(cls, text)
        return found

    @property
    def value(self) -> str:
        """The plain string, as the enum this replaces had it."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Language({str.__str__(self)!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(), serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


Language.C = Language("c")
Language.CPP = Language("cpp")
Language.CSHARP = Language("csharp")
Language.JAVA = Language("java")
Language.RUST = Language("rust")
Language.PYTHON = Language("python")
Language.JAVASCRIPT = Language("javascript")
Language.JULIA = Language("julia")
Language.LEAN4 = Language("lean4")
