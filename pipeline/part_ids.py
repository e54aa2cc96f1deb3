"""Which ids a table's parts hold, and which parts hold each id: kept per process, brought up to date from
one listing of the table's folder (names and inodes, no stat) each time it is asked.

A fed audit asks its runs table which of some ids it holds about four times a batch (the batch's check
for runs stored already, the feed's, the read of what landed). Asked part by part, each question stat'ed
every part and intersected its ids: O(parts) a question, so O(batches²) over an audit, 19 ms a question
at 2,000 parts. Here a question costs the listing and a dictionary look-up per id asked.

A part never changes once renamed into place; it is only replaced whole under its name (a batch's part
rewritten, a compaction's merged part), which gives it a new inode. So a listing's names and inodes say
which parts to read (new, or a new inode under a known name) and which to forget (gone). Bounded: past
``CACHED_IDS_MAX`` ids in all, the other tables' indexes are dropped (read again when next asked).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from pipeline.parts import read_part

CACHED_IDS_MAX = 500_000


class PartIds:
    """One table folder's index: part name -> its ids, and id -> the names of the parts holding it."""

    def __init__(self, folder: Path, id_field: str) -> None:
        self.folder = folder
        self.id_field = id_field
        self.inode_of: dict[str, int] = {}  # part name -> its inode when its ids were read
        self.ids_of: dict[str, frozenset[str]] = {}
        self.holders: dict[str, list[str]] = {}  # id -> names of the parts holding it (one, nearly always)
        self.count = 0  # ids held, summed over parts (an id in two parts counts twice)

    def refresh(self, listing: Mapping[str, int]) -> None:
        """Bring the index to ``listing`` (part name -> inode): forget the parts gone or replaced, read
        the new ones."""
        for name in [n for n, inode in self.inode_of.items() if listing.get(n) != inode]:
            self.forget(name)
        for name, inode in listing.items():
            if name not in self.inode_of:
                ids = read_part(self.folder / name, [self.id_field]).column(self.id_field).to_pylist()
                self.add(name, inode, frozenset(ids))

    def add(self, name: str, inode: int, ids: frozenset[str]) -> None:
        self.inode_of[name], self.ids_of[name] = inode, ids
        for id_ in ids:
            self.holders.setdefault(id_, []).append(name)
        self.count += len(ids)

    def forget(self, name: str) -> None:
        del self.inode_of[name]
        ids = self.ids_of.pop(name)
        for id_ in ids:
            names = self.holders[id_]
            names.remove(name)
            if not names:
                del self.holders[id_]
        self.count -= len(ids)

    def among(self, wanted: Collection[str]) -> set[str]:
        return {id_ for id_ in wanted if id_ in self.holders}

    def holding(self, wanted: Collection[str]) -> list[str]:
        """The names of the parts holding one of ``wanted``, in name order (the order a table reads in)."""
        return sorted({name for id_ in wanted for name in self.holders.get(id_, ())})


_indexes: dict[tuple[Path, str], PartIds] = {}
_lock = threading.Lock()  # the flow's thread and every batch's writer ask at once


@contextmanager
def indexed(folder: Path, id_field: str, listed: Callable[[Path], Mapping[str, int]]) -> Iterator[PartIds]:
    """A folder's index, up to date with ``listed(folder)`` (part name -> inode), held for one question:
    the listing is taken under the lock, so two threads never undo each other's refresh."""
    with _lock:
        index = _indexes.setdefault((folder, id_field), PartIds(folder, id_field))
        index.refresh(listed(folder))
        drop_others_past_bound(index)
        yield index


def drop_others_past_bound(kept: PartIds) -> None:
    """Past the bound, every index but the one being asked is dropped (it must stay whole to answer)."""
    if sum(index.count for index in _indexes.values()) > CACHED_IDS_MAX:
        for key in [key for key, index in _indexes.items() if index is not kept]:
            del _indexes[key]
