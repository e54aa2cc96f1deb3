"""The Hugging Face layout: one config per subset, ``<subset>/test-0000i-of-0000N.parquet``, and a README
whose YAML header declares the configs and their features, so ``datasets.load_dataset(OUT, "ml")`` loads
it with no network.

Rows are the SURGE-format records, column for column (the category key keeps the release's spelling).
``custom_features`` is a struct with one field per key the subset uses. A key whose values all have one
JSON type in the subset keeps it (``lines`` int64, ``keywords`` list of strings, ``dependencies`` list of
bools); a key whose type varies, or that is missing or null in some rows (bg ``type``: a list or the string
"None"; tc ``time``: "12.6 seconds" or null; rl keys the PlotNeuralNet records lack), is a string holding
the value's JSON text, null where the key is absent. fl has no keys; Parquet cannot store an empty struct,
so its ``custom_features`` is the JSON text ``{}``. ``decode_row`` turns a loaded row back into the record.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.export.surge_format import RECORD_KEYS
from pipeline.subsets import subset_spec

ROWS_PER_SHARD = 5000  # SURGE subsets are 60-200 records: one shard each unless a subset grows past this
JSON_TEXT = "json"


def value_type(value: Any) -> str | None:
    """A value's JSON type as an HF dtype; None for null or a type we keep as JSON text."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list) and value:
        inner = {value_type(item) for item in value}
        if len(inner) == 1 and next(iter(inner)) in ("bool", "int64", "float64", "string"):
            return f"list<{next(iter(inner))}>"
    return None


def feature_types(subset: str, records: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Per custom_features key: its dtype when every record has it with one type, else 'json'."""
    keys = list(subset_spec(subset).feature_keys)
    for record in records:
        keys += [key for key in record["custom_features"] if key not in keys]
    types: dict[str, str] = {}
    for key in keys:
        seen = {
            value_type(r["custom_features"].get(key)) if key in r["custom_features"] else None
            for r in records
        }
        types[key] = next(iter(seen)) if len(seen) == 1 and None not in seen else JSON_TEXT  # type: ignore[assignment]
    return types


_ARROW = {"bool": pa.bool_(), "int64": pa.int64(), "float64": pa.float64(), "string": pa.string()}


def arrow_type(dtype: str) -> pa.DataType:
    if dtype.startswith("list<"):
        return pa.list_(_ARROW[dtype[5:-1]])
    return _ARROW.get(dtype, pa.string())


def arrow_schema(subset: str, types: dict[str, str]) -> pa.Schema:
    spec = subset_spec(subset)
    features = pa.struct([pa.field(k, arrow_type(t)) for k, t in types.items()]) if types else pa.string()
    return pa.schema(
        [pa.field(spec.category_key, pa.int64()), pa.field("custom_features", features)]
        + [pa.field(name, pa.string()) for name in RECORD_KEYS[1:]]
    )


def encode_record(record: dict[str, Any], subset: str, types: dict[str, str]) -> dict[str, Any]:
    features = record["custom_features"]
    if types:
        encoded: Any = {
            key: (json.dumps(features[key]) if key in features else None)
            if dtype == JSON_TEXT
            else features.get(key)
            for key, dtype in types.items()
        }
    else:
        encoded = json.dumps(features)
    return {**record, "custom_features": encoded}


def decode_row(row: dict[str, Any], types: dict[str, str]) -> dict[str, Any]:
    """A loaded HF row back into the SURGE record it was made from."""
    features = row["custom_features"]
    if not types:
        decoded = json.loads(features)
    else:
        decoded = {}
        for key, dtype in types.items():
            if dtype == JSON_TEXT:
                if features.get(key) is not None:
                    decoded[key] = json.loads(features[key])
            else:
                decoded[key] = features[key]
    return {**row, "custom_features": decoded}


def write_subset(out: Path, subset: str, records: Sequence[dict[str, Any]]) -> tuple[dict[str, str], int]:
    types = feature_types(subset, records)
    schema = arrow_schema(subset, types)
    table = pa.Table.from_pylist([encode_record(r, subset, types) for r in records], schema=schema)
    shards = max(1, -(-len(records) // ROWS_PER_SHARD))
    folder = out / subset
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(shards):
        part = table.slice(index * ROWS_PER_SHARD, ROWS_PER_SHARD)
        pq.write_table(part, folder / f"test-{index:05d}-of-{shards:05d}.parquet")
    return types, shards


def features_yaml(subset: str, types: dict[str, str]) -> list[str]:
    spec = subset_spec(subset)
    lines = [f"- config_name: {subset}", "  features:", f"  - name: {spec.category_key}", "    dtype: int64"]
    if types:
        lines += ["  - name: custom_features", "    struct:"]
        for key, dtype in types.items():
            if dtype.startswith("list<"):
                lines += [f"    - name: {key}", f"      sequence: {dtype[5:-1]}"]
            else:
                lines += [f"    - name: {key}", f"      dtype: {'string' if dtype == JSON_TEXT else dtype}"]
    else:
        lines += ["  - name: custom_features", "    dtype: string"]
    for name in RECORD_KEYS[1:]:
        lines += [f"  - name: {name}", "    dtype: string"]
    return lines


def yaml_header(configs: dict[str, tuple[dict[str, str], int]], licence: str) -> str:
    lines = ["---", f"license: {licence}", "configs:"]
    for subset in configs:
        lines += [
            f"- config_name: {subset}",
            "  data_files:",
            "  - split: test",
            f"    path: {subset}/test-*",
        ]
    lines.append("dataset_info:")
    for subset, (types, _) in configs.items():
        lines += features_yaml(subset, types)
    return "\n".join(lines) + "\n---\n"


def write_hf(
    out: Path, records: dict[str, list[dict[str, Any]]], card: str, licence: str = "other"
) -> dict[str, Any]:
    """Write the shards and README.md (YAML header + card); return per subset its key types and shards."""
    configs = {subset: write_subset(out, subset, rows) for subset, rows in records.items()}
    json_keys = [f"{s}.{k}" for s, (types, _) in configs.items() for k, t in types.items() if t == JSON_TEXT]
    note = (
        "\n## Column types\n\ncustom_features keys stored as JSON text (their type varies within the subset, "
        f"or some rows lack them; null = absent): {', '.join(json_keys) or 'none'}. "
        "A subset without keys (fl) stores custom_features as the JSON text `{}`.\n"
    )
    (out / "README.md").write_text(yaml_header(configs, licence) + "\n" + card + note, encoding="utf-8")
    return {subset: {"feature_types": types, "shards": shards} for subset, (types, shards) in configs.items()}
