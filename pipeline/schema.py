"""One explicit Arrow schema per record type, derived from the pydantic model.

Strings are ``large_string`` (code and program output can pass 2 GiB in one column chunk), enums are
plain strings, nested records are structs, free-form dicts are JSON text. The derived schema is
checked against a golden file in the tests, so a field change is always a visible, deliberate diff.
"""

from __future__ import annotations

import json
import types
import typing
from datetime import datetime
from enum import Enum
from typing import Any

import pyarrow as pa
from pydantic import BaseModel

from pipeline.records import STORED_ROW


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
        fields.append(pa.field(name, arrow_type(info.return_type), nullable=False))
    return fields


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    return pa.schema(arrow_fields(model))


def to_row(record: BaseModel) -> dict[str, Any]:
    """A record as an Arrow-ready row (dicts become JSON text, recursively inside structs)."""
    return _encode(type(record), record.model_dump(mode="python"))


def _encode(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    annotations = {name: info.annotation for name, info in model.model_fields.items()}
    for name, value in data.items():
        row[name] = _encode_value(annotations.get(name), value)
    return row


def _encode_value(annotation: Any, value: Any) -> Any:
    if value is None:
        return None
    inner = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(inner) == 1:
        annotation = inner[0]
    if typing.get_origin(annotation) is dict:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _encode(annotation, value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, str) and type(value) is not str:  # Language: Arrow stores the plain string
        return str.__str__(value)
    return value


def from_row(model: type[BaseModel], row: dict[str, Any]) -> Any:
    """Inverse of ``to_row``: decode JSON-text dicts and drop computed fields, then validate. The row as
    stored goes along as validation context (``stored_row``), so a model can read old parts' columns."""
    return model.model_validate(_decode(model, row), context={STORED_ROW: row})


def _decode(model: type[BaseModel], row: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        if name not in row:
            continue
        data[name] = _decode_value(info.annotation, row[name])
    return data


def _decode_value(annotation: Any, value: Any) -> Any:
    if value is None:
        return None
    inner = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(inner) == 1:
        annotation = inner[0]
    if typing.get_origin(annotation) is dict:
        return json.loads(value)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _decode(annotation, value)
    return value
