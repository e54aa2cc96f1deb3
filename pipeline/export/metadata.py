"""The Hugging Face card's metadata: built with ``huggingface_hub``'s ``DatasetCardData`` and checked here
against the fields the Hub knows, because ``DatasetCard.validate()`` asks the Hub over the network.

The licence follows the upstreams the rows came from, and only those: one Hub licence id when they share
one, the list when every one has an id, else ``other`` with a ``license_name`` and ``license_link`` to the
export's LICENSE.md, which lists each upstream with its licence (a card's licence is a claim about the
data, so an upstream without a stated licence is never hidden behind a permissive id).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.dataset import DatasetRow

if TYPE_CHECKING:  # huggingface_hub loads when a card is made, not when the CLI builds its parser
    from huggingface_hub import DatasetCardData

PRETTY_NAME = "SURGE (exported by surge-pipeline)"
# huggingface.js packages/tasks/src/pipelines.ts: SURGE asks for a program's output as text.
TASK_CATEGORIES = ("text-generation", "question-answering")
KNOWN_TASK_CATEGORIES = frozenset({*TASK_CATEGORIES, "text-classification", "text2text-generation"})
# DatasetCardData's docstring (huggingface_hub) lists the Hub's size buckets.
SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
)
KNOWN_SIZE_CATEGORIES = frozenset({label for _, label in SIZE_CATEGORIES} | {"other"})
# The Hub's licence ids (hub-docs docs/hub/repositories-licenses.md) that our upstreams use, by the SPDX
# id our sources record; a licence not here has no Hub id and makes the card's licence `other`.
HUB_LICENCE_IDS = {
    "Apache-2.0": "apache-2.0",
    "MIT": "mit",
    "CC-BY-SA-4.0": "cc-by-sa-4.0",
    "CC-BY-NC-ND-4.0": "cc-by-nc-nd-4.0",
    "CC-BY-4.0": "cc-by-4.0",
    "GPL-3.0": "gpl-3.0",
    "BSD-3-Clause": "bsd-3-clause",
}
KNOWN_LICENCE_IDS = frozenset({*HUB_LICENCE_IDS.values(), "other", "unknown"})
# Rows built from this repository's own templates record "project": they are under its licence.
PROJECT_LICENCE = "MIT"
LICENCE_FILE = "LICENSE.md"
MIXED_LICENCE_NAME = "surge-upstream-licences"
_LICENCE_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]*$")  # the Hub's `license_name`: an id like my-license-1.0


def row_licence(row: DatasetRow) -> str:
    """The licence a row is under: its upstream's, ours for our templates, named when none was recorded."""
    licence = row.upstream.licence
    if licence == "project":
        return PROJECT_LICENCE
    if licence in ("", "none stated"):
        return "no licence stated upstream" if licence else "not recorded"
    return licence


def size_category(rows: int) -> str:
    return next((label for limit, label in SIZE_CATEGORIES if rows < limit), "other")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "unnamed"


def licence_fields(rows: Sequence[DatasetRow]) -> dict[str, Any]:
    """``license`` (and, for ``other``, ``license_name`` and ``license_link``) for these rows' upstreams."""
    licences = sorted({row_licence(row) for row in rows})
    ids = [HUB_LICENCE_IDS.get(licence) for licence in licences]
    if all(ids):
        return {"license": ids[0] if len(ids) == 1 else ids}
    name = slug(licences[0]) if len(licences) == 1 else MIXED_LICENCE_NAME
    return {"license": "other", "license_name": name, "license_link": LICENCE_FILE}


def card_data(
    rows: Sequence[DatasetRow], configs: list[dict[str, Any]], dataset_info: list[dict[str, Any]]
) -> DatasetCardData:
    from huggingface_hub import DatasetCardData

    return DatasetCardData(
        pretty_name=PRETTY_NAME,
        language=["en", "code"],
        task_categories=list(TASK_CATEGORIES),
        size_categories=[size_category(len(rows))],
        source_datasets=["original"],
        **licence_fields(rows),  # first of the extra fields, so license_name sits above the configs
        tags=["code", "execution-prediction", "benchmark"],
        configs=configs,
        dataset_info=dataset_info,
    )


def metadata_problems(metadata: dict[str, Any], folder: Path | None = None) -> list[str]:
    """What the Hub would reject or warn about in a card's metadata; with ``folder``, also each config
    whose data files match nothing there."""
    problems = []
    licences = metadata.get("license")
    for licence in licences if isinstance(licences, list) else [licences]:
        if licence not in KNOWN_LICENCE_IDS:
            problems.append(f"license {licence!r} is not a Hub licence id")
    if licences == "other":
        if not _LICENCE_NAME.match(str(metadata.get("license_name", ""))):
            problems.append("license: other needs a license_name like my-license-1.0")
        if not metadata.get("license_link"):
            problems.append("license: other needs a license_link")
    if not metadata.get("pretty_name"):
        problems.append("no pretty_name")
    for label in metadata.get("size_categories") or ["(none)"]:
        if label not in KNOWN_SIZE_CATEGORIES:
            problems.append(f"size category {label!r} is not one of the Hub's")
    for task in metadata.get("task_categories") or ["(none)"]:
        if task not in KNOWN_TASK_CATEGORIES:
            problems.append(f"task category {task!r} is not one of the Hub's")
    configs = metadata.get("configs") or []
    if not configs:
        problems.append("no configs")
    for config in configs:
        problems += _config_problems(config, folder)
    return problems


def _config_problems(config: dict[str, Any], folder: Path | None) -> list[str]:
    name = config.get("config_name")
    files = config.get("data_files") or []
    if not name or not files:
        return [f"config {name!r} lacks a config_name or data_files"]
    if folder is None:
        return []
    return [
        f"config {name}: {entry['path']} matches no file"
        for entry in files
        if not any(path.is_file() for path in folder.glob(entry["path"]))
    ]
