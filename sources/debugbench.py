"""DebugBench (github.com/thunlp/DebugBench): ``benchmark/<lang>_<subtype>.json``, JSON lists.

Single-bug shards (``cpp_faulty indexing.json``) carry ``explanations`` and ``release_time``; multi-bug
shards (``java_triple.json``, subtype double/triple/quadruple) carry ``type``, a list of bug types,
instead. The item text is the buggy program (SURGE bg runs it); the oracle stays in the fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sandboxes.languages import parse_language
from sources.base import Loaded, Source, quarantine, read_json_list

NAME = "debugbench"
REQUIRED = ("slug", "buggy_code", "oracle_code")
MULTI_BUG_COUNTS = {"double": 2, "triple": 3, "quadruple": 4}


def shard_parts(stem: str) -> tuple[str, str]:
    """'cpp_faulty indexing' -> ('cpp', 'faulty indexing')."""
    language, _, subtype = stem.partition("_")
    return language, subtype


def bug_facts(subtype: str, record: dict) -> dict:
    """Bug count and types, the same shape for single- and multi-bug shards."""
    if subtype in MULTI_BUG_COUNTS:
        types = record.get("type")
        return {
            "bug_count": MULTI_BUG_COUNTS[subtype],
            "bug_types": list(types) if isinstance(types, list) else [],
        }
    return {"bug_count": 1, "bug_types": [subtype]}


def read(checkout: Path, commit: str) -> Iterator[Loaded]:
    for path, relative in SOURCE.files(checkout):
        upstream_language, subtype = shard_parts(path.stem)
        try:
            language = parse_language(upstream_language)
        except ValueError as error:  # DebugBench has cpp/java/python3 only: anything else is a broken shard
            yield quarantine(NAME, relative, f"unknown language in shard name: {error}")
            continue
        for parsed in read_json_list(NAME, path, relative, REQUIRED):
            if not isinstance(parsed, tuple):
                yield parsed
                continue
            index, record = parsed
            yield SOURCE.item(
                key=f"{path.stem}[{index}]",
                commit=commit,
                path=relative,
                locator=index,
                text=record["buggy_code"],
                language=language,
                upstream_language=upstream_language,
                fields={**record, "subtype": subtype, **bug_facts(subtype, record)},
            )


SOURCE = Source(
    name=NAME,
    url="https://github.com/thunlp/DebugBench",
    commit="2761bab93c4c65351b19d0ef4a94b26abe47a185",
    licence="Apache-2.0",
    kind="git",
    paths=("benchmark/*.json",),
    samples="debugbench",
    read=read,
    description="DebugBench buggy/oracle LeetCode programs, 51 shards (SURGE bg)",
)
