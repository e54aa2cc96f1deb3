"""Where pulled sources land in the Parquet store: ``items``, ``pulls`` and the shared quarantine.

Items are content-addressed (``item_id``), so pulling the same commit again appends nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.records import SourceItem
from pipeline.store import Store, Table
from sources.base import PullRecord

if TYPE_CHECKING:
    from sources.git import PullOutcome

ITEMS_TABLE = "items"
PULLS_TABLE = "pulls"


def items_table(store: Store) -> Table[SourceItem]:
    return store.table(ITEMS_TABLE, SourceItem, "item_id")


def pulls_table(store: Store) -> Table[PullRecord]:
    return store.table(PULLS_TABLE, PullRecord, "pull_id")


def write_outcome(store: Store, outcome: PullOutcome) -> int:
    """Append the items and quarantined records not stored yet, and the pull record; return new items."""
    items = items_table(store)
    known_items = items.existing_ids()
    new_items = [item for item in outcome.items if item.item_id not in known_items]
    items.append(new_items)
    items.flush()
    known_bad = store.quarantine.existing_ids()
    store.quarantine.append(q for q in outcome.quarantined if q.quarantine_id not in known_bad)
    store.quarantine.flush()
    pulls = pulls_table(store)
    pulls.append([outcome.record])
    pulls.flush()
    return len(new_items)
