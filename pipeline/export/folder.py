"""Where an export goes: a new or empty folder, or, with ``overwrite``, an old export replaced whole.

Writing into an old export once overwrote some files and kept the rest: a ``pyver.json`` from before, seven
old subsets beside a card for one, and `surge score` then read the stale file. Now the export is written
into a fresh folder beside the target and renamed into place, so the target holds exactly one export, and
a failure halfway leaves the old one as it was. ``overwrite`` only replaces a folder that holds nothing an
export does not write: a typo (the home folder, the store) is refused, never deleted.

A kill -9 leaves its staging folder (``.OUT.partial-*``) beside the target, and one between the two renames
leaves the old export in ``.OUT.old-*``. The next export to that target puts the old export back before it
looks at the target, and removes what a dead export left; it holds a lock on the parent folder meanwhile,
so that no live export's staging is touched.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pipeline.errors import ConfigurationError, InputError
from pipeline.subsets import REGISTRY

Written = TypeVar("Written")
# surge: dataset/ and CARD.md; hf: README.md, LICENSE.md and one folder per subset
EXPORT_FILES = frozenset({"dataset", "CARD.md", "README.md", "LICENSE.md"})


def export_entries() -> frozenset[str]:
    """The top-level names an export writes (hf: one folder per subset), subsets of plug-ins included."""
    return EXPORT_FILES | set(REGISTRY)


def check_target(out: Path, overwrite: bool, keep: Iterable[Path] = ()) -> None:
    """Refuse, before any work, a target that is a file, a non-empty folder without ``overwrite``, or,
    with it, a folder holding the paths in ``keep`` (the store, the import) or what no export writes."""
    if out.parent.is_dir():
        with export_lock(out):
            restore_moved_aside(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file, not a folder", hint="pick a folder for the export")
    entries = sorted(entry.name for entry in out.iterdir()) if out.is_dir() else []
    if not entries:
        return
    if not overwrite:
        raise InputError(
            f"{out} is not empty ({len(entries)} entries, e.g. {', '.join(entries[:3])}); an export into it "
            "would mix with what is there",
            hint="pass --overwrite to replace it whole, or pick an empty folder",
        )
    target = out.resolve()
    for path in [*keep, Path.cwd()]:
        if path.resolve().is_relative_to(target):
            raise ConfigurationError(
                f"--overwrite would delete {path}, which is inside {out}", hint="pick another output folder"
            )
    foreign = [name for name in entries if name not in export_entries()]
    if foreign:
        raise InputError(
            f"{out} holds what no export writes ({', '.join(foreign[:3])}): --overwrite replaces only an "
            "old export",
            hint="remove the folder yourself if it can go, or pick another",
        )


def write_whole(out: Path, write: Callable[[Path], Written]) -> Written:
    """Run ``write`` into a fresh folder beside ``out``, then put that folder in place of ``out`` (checked
    by ``check_target`` first). The old content is removed only once the new one is complete."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with export_lock(out):
        clear_leftovers(out)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
        try:
            written = write(staging)
            staging.chmod(0o755)  # mkdtemp's 0700 is for the unfinished folder, not the export
            replace_folder(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return written


@contextmanager
def export_lock(out: Path) -> Iterator[None]:
    """One export into ``out``'s parent folder at a time: a lock on the folder itself, so nothing is left
    beside the export; the kernel releases the lock of a killed one."""
    folder = os.open(out.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)


def restore_moved_aside(out: Path) -> None:
    """An old export that a killed --overwrite moved aside goes back when ``out`` is missing."""
    moved_aside = sorted(out.parent.glob(f".{out.name}.old-*/{out.name}"))
    if moved_aside and not out.exists():
        moved_aside[-1].rename(out)
        moved_aside[-1].parent.rmdir()


def clear_leftovers(out: Path) -> None:
    """What a killed export to ``out`` left (called under the lock): staging and moved-aside folders."""
    restore_moved_aside(out)
    for leftover in [*out.parent.glob(f".{out.name}.partial-*"), *out.parent.glob(f".{out.name}.old-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def replace_folder(new: Path, out: Path) -> None:
    if not out.exists():
        new.rename(out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    out.rename(old / out.name)
    new.rename(out)
    shutil.rmtree(old, ignore_errors=True)
