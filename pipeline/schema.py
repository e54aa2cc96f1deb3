"""One explicit Arrow schema per record type, derived from the pydantic model.

Strings are ``large_string`` (code and program output can pass 2 GiB in one column chunk), bytes
``large_binary``, enums are plain strings, nested records are structs, free-form dicts are JSON text.
The derived schema is checked against a golden file in the tests, so a field change is always a
visible, deliberate diff.
"""

from __future__ import annotations

import functools
import importlib.abc
import json
import sys
import types
import typing
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from typing import Any

import pyarrow as pa
from pydantic import BaseModel

from pipeline.records import STORED_ROW


def skip_pyarrows_pandas_probe() -> None:
    """For the `surge` executable only: let pyarrow convert Python lists without importing pandas first.

    The first time pyarrow converts a list (``pa.array``, ``Table.from_pylist``), it imports pandas only to
    ask whether the list is a pandas object: 0.18 CPU-s on the critical path of every command (measured:
    most of planning's 0.24 s for 1,000 programs), and no row of ours is ever a pandas object. So that one
    probe runs with pandas hidden, and pyarrow notes it as absent for such checks. pyarrow still imports
    pandas when asked for it (``to_pandas``, ``from_pandas`` retry the import), and anything else imports
    it as usual; but until then ``pa.array(a_pandas_series)`` would not see a Series: hence the executable
    only, where nothing hands pyarrow pandas objects, never at import of this module."""
    if "pandas" in sys.modules:
        return
    sys.meta_path.insert(0, _HIDE_PANDAS)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(_HIDE_PANDAS)


class _HidePandas(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas":
            raise ModuleNotFoundError("hidden from pyarrow's probe", name=name)


_HIDE_PANDAS = _HidePandas()


def arrow_type(annotation: Any) -> pa.DataType:
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType):
        if len(args) != 1:
            raise TypeError(f"only Optional unions map to Arrow: {annotation}")
        return arrow_type(args[0])
    if origin is tuple or origin is list:
        return pa.large_list(arrow_type(args[0]))
    if origin is typing.Literal and all(isinstance(arg, str) for arg in args):
        return pa.large_string()
    if origin is dict:
        return pa.large_string()  # JSON text: readable everywhere, no map-type quirks across readers
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return pa.struct(arrow_fields(annotation))
        if issubclass(annotation, bytes):  # output that is not valid UTF-8, kept as written
            return pa.large_binary()
        if issubclass(annotation, Enum | str):  # str: plain, StrEnum or an open type such as Language
            return pa.large_string()
        if issubclass(annotation, bool):
            return pa.bool_()
        if issubclass(annotation, int):
            return pa.int64()
        if issubclass(annotation, float):
            return pa.float64()
        if issubclass(annotation, datetime):
            return pa.timestamp("us", tz="UTC")
    raise TypeError(f"no Arrow type for {annotation!r}")


def _is_optional(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


def arrow_fields(model: type[BaseModel]) -> list[pa.Field]:
    fields = [
        pa.field(name, arrow_type(info.annotation), nullable=_is_optional(info.annotation))
        for name, info in model.model_fields.items()
    ]
    for name, info in model.model_computed_fields.items():
        fields.append(pa.field(name, arrow_type(info.return_type), nullable=_is_optional(info.return_type)))
    return fields


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    return pa.schema(arrow_fields(model))


def to_row(record: BaseModel) -> dict[str, Any]:
    """A record as an Arrow-ready row (dicts become JSON text, recursively inside structs)."""
    return _encode(type(record), record.model_dump(mode="python"))


def _encode(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    encoders = _field_encoders(model)
    return {name: encoders.get(name, _plain)(value) for name, value in data.items()}


# Per model, once: what each field's annotation asks of its values (a job encodes a row per run, and
# reading the annotations again for every value cost about as much as the rest of the encoding).
@functools.cache
def _field_encoders(model: type[BaseModel]) -> dict[str, Callable[[Any], Any]]:
    return {name: _encoder_for(info.annotation) for name, info in model.model_fields.items()}


def _encoder_for(annotation: Any) -> Callable[[Any], Any]:
    annotation = _unwrap_optional(annotation)
    if typing.get_origin(annotation) is dict:
        return _none_or(lambda value: json.dumps(value, sort_keys=True, ensure_ascii=False, default=str))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _none_or(functools.partial(_encode, annotation))
    return _plain


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, str) and type(value) is not str:  # Language: Arrow stores the plain string
        return str.__str__(value)
    return value


def _none_or(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


def _unwrap_optional(annotation: Any) -> Any:
    inner = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(inner) == 1:
        return inner[0]
    return annotation


def from_row(model: type[BaseModel], row: dict[str, Any]) -> Any:
    """Inverse of ``to_row``: decode JSON-text dicts and drop computed fields, then validate. The row as
    stored goes along as validation context (``stored_row``), so a model can read old parts' columns."""
    return model.model_validate(_decode(model, row), context={STORED_ROW: row})


def _decode(model: type[BaseModel], row: dict[str, Any]) -> dict[str, Any]:
    return {name: decode(row[name]) for name, decode in _field_decoders(model).items() if name in row}


@functools.cache
def _field_decoders(model: type[BaseModel]) -> dict[str, Callable[[Any], Any]]:
    return {name: _decoder_for(info.annotation) for name, info in model.model_fields.items()}


def _decoder_for(annotation: Any) -> Callable[[Any], Any]:
    annotation = _unwrap_optional(annotation)
    if typing.get_origin(annotation) is dict:
        return _none_or(json.loads)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _none_or(functools.partial(_decode, annotation))
    return lambda value: value
