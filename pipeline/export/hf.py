"""The Hugging Face layout: one config per subset, ``<subset>/test-0000i-of-0000N.parquet``, and a README
whose metadata (built with ``huggingface_hub``'s ``DatasetCardData``, checked by export/metadata.py) declares
the licence, the configs and their features, so ``datasets.load_dataset(OUT, "ml")`` loads it with no
network, and LICENSE.md listing the licences of the upstreams the rows came from.

Rows are the SURGE-format records plus what a union of configs needs and the SURGE format has no room for:
a ``subset`` column, one ``custom_category`` column (SURGE's ml, cl and rl files spell the key
``custom_categoey``; those files keep it), and the provenance of each row (upstream item and commit, run
id, profile, toolchains).
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

from pipeline.dataset import DatasetRow
from pipeline.export.card import licence_document
from pipeline.export.metadata import LICENCE_FILE, card_data, metadata_problems, row_licence
from pipeline.export.surge_format import RECORD_KEYS
from pipeline.subsets import subset_spec

ROWS_PER_SHARD = 5000  # SURGE subsets are 60-200 records: one shard each unless a subset grows past this
JSON_TEXT = "json"
CATEGORY = "custom_category"  # one column in every config; SURGE's files keep their own spelling


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


PROVENANCE = (
    ("row_id", pa.string()),
    ("upstream_source", pa.string()),
    ("upstream_repo", pa.string()),
    ("upstream_commit", pa.string()),
    ("upstream_path", pa.string()),
    ("upstream_key", pa.string()),
    ("upstream_licence", pa.string()),
    ("label_origin", pa.string()),
    ("construction", pa.string()),
    ("run_id", pa.string()),
    ("profile", pa.string()),
    ("backend", pa.string()),
    ("toolchain_versions", pa.string()),
    ("auto_approved", pa.bool_()),
    ("recorded_llm", pa.bool_()),
)
_HF_DTYPE = {pa.string(): "string", pa.bool_(): "bool", pa.int64(): "int64"}


def arrow_schema(types: dict[str, str]) -> pa.Schema:
    features = pa.struct([pa.field(k, arrow_type(t)) for k, t in types.items()]) if types else pa.string()
    return pa.schema(
        [pa.field("subset", pa.string()), pa.field(CATEGORY, pa.int64())]
        + [pa.field("custom_features", features)]
        + [pa.field(name, pa.string()) for name in RECORD_KEYS[1:]]
        + [pa.field(name, dtype) for name, dtype in PROVENANCE]
    )


def provenance(row: DatasetRow) -> dict[str, Any]:
    """Where the row came from and which run made its label (None where the label is the release's)."""
    run = row.run
    return {
        "row_id": row.row_id,
        "upstream_source": row.upstream.source,
        "upstream_repo": row.upstream.repo,
        "upstream_commit": row.upstream.commit,
        "upstream_path": row.upstream.path,
        "upstream_key": row.upstream.key,
        "upstream_licence": row_licence(row),
        "label_origin": row.label_origin,
        "construction": row.construction,
        "run_id": run.run_id if run else None,
        "profile": run.profile if run else None,
        "backend": run.backend if run else None,
        "toolchain_versions": json.dumps(run.toolchain_versions, sort_keys=True) if run else None,
        "auto_approved": row.auto_approved,
        "recorded_llm": row.recorded_llm,
    }


def encode_record(record: dict[str, Any], row: DatasetRow, types: dict[str, str]) -> dict[str, Any]:
    """The HF row: the subset, one category column whatever the subset's spelling, the record's other
    keys, then the provenance the SURGE format has no room for."""
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
    category = record[subset_spec(row.subset).category_key]
    rest = {name: record[name] for name in RECORD_KEYS[1:]}
    return {"subset": row.subset, CATEGORY: category, "custom_features": encoded, **rest, **provenance(row)}


def decode_row(row: dict[str, Any], types: dict[str, str]) -> dict[str, Any]:
    """A loaded HF row back into the SURGE record it was made from (the release's category spelling)."""
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
    category_key = subset_spec(row["subset"]).category_key
    return {category_key: row[CATEGORY], "custom_features": decoded} | {k: row[k] for k in RECORD_KEYS[1:]}


def write_subset(
    out: Path, subset: str, records: Sequence[dict[str, Any]], rows: Sequence[DatasetRow]
) -> tuple[dict[str, str], int]:
    types = feature_types(subset, records)
    encoded = [encode_record(record, row, types) for record, row in zip(records, rows, strict=True)]
    table = pa.Table.from_pylist(encoded, schema=arrow_schema(types))
    shards = max(1, -(-len(records) // ROWS_PER_SHARD))
    folder = out / subset
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(shards):
        part = table.slice(index * ROWS_PER_SHARD, ROWS_PER_SHARD)
        pq.write_table(part, folder / f"test-{index:05d}-of-{shards:05d}.parquet")
    return types, shards


def features(subset: str, types: dict[str, str]) -> dict[str, Any]:
    """The config's features as the card's ``dataset_info`` declares them."""
    if types:
        struct = [
            {"name": key, "sequence": dtype[5:-1]}
            if dtype.startswith("list<")
            else {"name": key, "dtype": "string" if dtype == JSON_TEXT else dtype}
            for key, dtype in types.items()
        ]
        custom: dict[str, Any] = {"name": "custom_features", "struct": struct}
    else:
        custom = {"name": "custom_features", "dtype": "string"}
    columns = [{"name": "subset", "dtype": "string"}, {"name": CATEGORY, "dtype": "int64"}, custom]
    columns += [{"name": name, "dtype": "string"} for name in RECORD_KEYS[1:]]
    columns += [{"name": name, "dtype": _HF_DTYPE[dtype]} for name, dtype in PROVENANCE]
    return {"config_name": subset, "features": columns}


def write_hf(
    out: Path, records: dict[str, list[dict[str, Any]]], rows: Sequence[DatasetRow], card: str
) -> dict[str, Any]:
    """Write the shards, README.md (the card with its metadata) and LICENSE.md; return per subset its
    key types and shards."""
    by_subset: dict[str, list[DatasetRow]] = {}
    for row in rows:
        by_subset.setdefault(row.subset, []).append(row)
    configs = {
        subset: write_subset(out, subset, found, by_subset[subset]) for subset, found in records.items()
    }
    data = card_data(
        rows,
        configs=[
            {"config_name": subset, "data_files": [{"split": "test", "path": f"{subset}/test-*"}]}
            for subset in configs
        ],
        dataset_info=[features(subset, types) for subset, (types, _) in configs.items()],
    )
    problems = metadata_problems(data.to_dict(), out)
    if problems:  # a bug of ours: the card must never reach the Hub with metadata it rejects
        raise ValueError(f"the card's metadata is invalid: {'; '.join(problems)}")
    json_keys = [f"{s}.{k}" for s, (types, _) in configs.items() for k, t in types.items() if t == JSON_TEXT]
    note = (
        "\n## Column types\n\ncustom_features keys stored as JSON text (their type varies within the subset, "
        f"or some rows lack them; null = absent): {', '.join(json_keys) or 'none'}. "
        "A subset without keys (fl) stores custom_features as the JSON text `{}`.\n"
    )
    from huggingface_hub import DatasetCard  # ~0.2 s to import: loaded by an HF export only

    readme = DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{card}{HF_COLUMNS}{note}")
    (out / "README.md").write_text(str(readme), encoding="utf-8")
    (out / LICENCE_FILE).write_text(licence_document(rows), encoding="utf-8")
    return {subset: {"feature_types": types, "shards": shards} for subset, (types, shards) in configs.items()}


HF_COLUMNS = """
## Columns

Every row has `subset` (the config it belongs to, so a union of configs keeps it), `custom_category` (the
category number; SURGE's ml, cl and rl files spell the key `custom_categoey`, kept there), the SURGE record's
`custom_features`, `question`, `gt` and three prompts, then its provenance: `row_id`, the upstream item
(`upstream_source`, `upstream_repo`, `upstream_commit`, `upstream_path`, `upstream_key`,
`upstream_licence`), `label_origin` (`released` or `executed`), `construction`, and for an executed label
the run (`run_id`, `profile`, `backend`, `toolchain_versions` as JSON text); `auto_approved` and
`recorded_llm` say how the item passed review.
"""
