"""One part file of the store: written atomically, read with an error that names it.

Writing (``write_part``): a hidden temporary name beside the final one, fsync, rename. Any failure on the
way (a full disk, a read-only folder, an exception or interrupt of the caller's) removes the temporary file
before the error goes on, so a failed write leaves nothing behind and the space it took is free again. A
failure of the disk or folder is a ``StoreWriteError`` naming the store, the file system it lives on and the
fix: it is ours, never a program's, and redoing the work that produced the rows would fail the same write.

Reading (``open_part``, ``read_part``): a part that is not valid Parquet (truncated, overwritten, garbage)
is a ``CorruptPart`` naming it, with the fix (``surge store check --repair`` moves it aside and records it in
the quarantine table). An I/O error with an errno (permissions, a vanished disk) is not corruption: the part
may be fine, so it is never moved, only reported. Which ids a table's parts hold is ``pipeline.part_ids``.
"""

from __future__ import annotations

import errno
import itertools
import os
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import StoreError

ROWS_PER_ROW_GROUP = 1024  # small enough to filter well, large enough to compress code columns
# A part whose data is smaller than this is written plain: no compression, no dictionaries. A fed audit
# writes two parts a batch (its plan, its rows) and reads both back, often of one row: with zstd and
# dictionaries over a run's 83 columns, a one-row part took 3.2 ms to write and 1.9 ms to read, plain
# 1.5 and 0.9. Large parts (and every compacted one) keep zstd.
PLAIN_BELOW_BYTES = 64 * 1024
CORRUPT_FOLDER = ".corrupt"  # a table's parts that do not read, moved aside (hidden: no reader globs it)

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
NOT_WRITABLE_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
# pyarrow's own writer reports some failures as an OSError without errno, the errno only in its text.
ERRNO_IN_TEXT = re.compile(r"\[errno (\d+)\]")
KIB = 1024
MOUNT_TABLE = Path("/proc/self/mounts")

_part_counter = itertools.count(1)


class StoreWriteError(StoreError):
    """A part could not be written: a full disk, a read-only folder, a failing device."""


class CorruptPart(StoreError):
    """A part file is not readable Parquet; ``part`` names it."""

    def __init__(self, part: Path, detail: str) -> None:
        store = part.parent.parent
        super().__init__(
            f"part {part.parent.name}/{part.name} of the store {store} is corrupt ({detail})",
            hint=f"`surge store check --repair --store {store}` moves it to "
            f"{part.parent.name}/{CORRUPT_FOLDER}/ with a quarantine record and keeps every other part",
        )
        self.part = part
        self.detail = detail

    def __reduce__(self) -> tuple[type[CorruptPart], tuple[Path, str]]:
        return CorruptPart, (self.part, self.detail)  # pickles (a Dask worker's error) with its fields


def write_part(
    folder: Path, table: pa.Table, name: str | None = None, row_groups: list[int] | None = None
) -> Path:
    """Write one part atomically: a hidden temporary file, fsync, rename; nothing left if it fails.

    ``folder``: a table's folder in a store. ``row_groups``: how many rows each row group holds, in order
    (default: ROWS_PER_ROW_GROUP each)."""
    name = name or new_part_name()
    final = folder / name
    # The temporary name is this writer's own: two writers of the same final part never share one.
    temporary = folder / f".{name}.{socket.gethostname()}-{os.getpid()}-{next(_part_counter)}.partial"
    with disk_errors(folder):
        folder.mkdir(parents=True, exist_ok=True)
        try:
            write_parquet(temporary, table, row_groups)
            with open(temporary, "rb") as written:
                os.fsync(written.fileno())
            os.replace(temporary, final)
        except BaseException:  # also an interrupt: the half-written file must not keep its space
            temporary.unlink(missing_ok=True)
            raise
    return final


def write_parquet(path: Path, table: pa.Table, row_groups: list[int] | None) -> None:
    small = table.nbytes < PLAIN_BELOW_BYTES
    compression, dictionaries = ("none", False) if small else ("zstd", True)
    with pq.ParquetWriter(path, table.schema, compression=compression, use_dictionary=dictionaries) as writer:
        if row_groups is None:
            writer.write_table(table, row_group_size=ROWS_PER_ROW_GROUP)
        else:
            for start, rows in zip(itertools.accumulate(row_groups, initial=0), row_groups, strict=False):
                writer.write_table(table.slice(start, rows), row_group_size=max(1, rows))


def new_part_name() -> str:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"part-{stamp}-{socket.gethostname()}-{os.getpid()}-{next(_part_counter):04d}.parquet"


@contextmanager
def disk_errors(folder: Path) -> Iterator[None]:
    """Turn an OSError of writing into a table ``folder`` into a StoreWriteError with its fix.

    The reason names the store and its file system, not the part: the batches of one job that hit the
    same full disk then report one line, not one per batch."""
    try:
        yield
    except OSError as error:
        raise write_error(folder, error) from error


def write_error(folder: Path, error: OSError) -> StoreWriteError:
    store = folder.parent
    code = error_number(error)
    if code in DISK_FULL_ERRNOS:
        return StoreWriteError(
            f"no space left on the disk of the store {store} ({describe_disk(store)})",
            hint="free space on that disk, or pass --store with a folder on a disk with room, then run the "
            "same command again: what was stored is kept",
        )
    if code in NOT_WRITABLE_ERRNOS:
        return StoreWriteError(
            f"the store {store} cannot be written: {os.strerror(code)} ({describe_disk(store)})",
            hint="make the folder writable, or pass --store with a writable folder",
        )
    detail = os.strerror(code) if code is not None else str(error)
    return StoreWriteError(
        f"cannot write to the store {store}: {detail} ({describe_disk(store)})",
        hint="check that disk (`dmesg`, `df`), or pass --store with a folder on another disk; then run the "
        "same command again",
    )


def error_number(error: OSError) -> int | None:
    if error.errno is not None:
        return error.errno
    found = ERRNO_IN_TEXT.search(str(error))
    return int(found.group(1)) if found else None


def describe_disk(path: Path) -> str:
    """The file system holding ``path``: where it is mounted and its size. Not what is free: that moves
    as other writers fail and clean up, and the batches of one job must give the same line."""
    existing = nearest_existing(path)
    try:
        usage = os.statvfs(existing)
        mount = mount_point(existing)
    except OSError:
        return f"the file system of {existing}"
    return f"the file system mounted at {mount}, {usage.f_blocks * usage.f_frsize // KIB} KiB"


def nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def mount_point(path: Path) -> Path:
    """The mount point of ``path``'s file system: the deepest mount holding it (Linux's mount table knows
    bind mounts, which share their device with the folder they came from), else the highest ancestor on
    the same device."""
    path = path.resolve()
    try:
        lines = MOUNT_TABLE.read_text().splitlines()
    except OSError:
        lines = []
    # Fields: device, mount point (spaces escaped as \040), type, options, ...
    mounts = [Path(line.split()[1].replace("\\040", " ")) for line in lines if len(line.split()) > 1]
    holding = [mount for mount in mounts if path == mount or mount in path.parents]
    if holding:
        return max(holding, key=lambda mount: len(mount.parts))
    device = path.stat().st_dev
    while path.parent != path and path.parent.stat().st_dev == device:
        path = path.parent
    return path


# -- reading ---------------------------------------------------------------------------------------


def open_part(part: Path) -> pq.ParquetFile:
    """A part's footer, or CorruptPart (not Parquet) / StoreError (cannot be read at all)."""
    try:
        return pq.ParquetFile(part)
    except Exception as error:  # noqa: BLE001 - sorted by read_error: corrupt or I/O
        raise read_error(part, error) from error


def read_part(part: Path, columns: list[str] | None = None) -> pa.Table:
    """A part's rows (``columns`` only, if given), or CorruptPart / StoreError naming it."""
    try:
        return pq.ParquetFile(part).read(columns=columns)
    except Exception as error:  # noqa: BLE001 - sorted by read_error: corrupt or I/O
        raise read_error(part, error) from error


def verify_part(part: Path) -> int:
    """Decode every row group of a part (footer, pages, checksums): its rows, or CorruptPart."""
    file = open_part(part)
    try:
        for group in range(file.num_row_groups):
            file.read_row_group(group)
    except Exception as error:  # noqa: BLE001 - sorted by read_error: corrupt or I/O
        raise read_error(part, error) from error
    return int(file.metadata.num_rows)


def read_error(part: Path, error: Exception) -> StoreError:
    """Corrupt (pyarrow could not decode it) or an I/O error with an errno (the part may be fine)."""
    if isinstance(error, OSError) and error.errno is not None:
        if isinstance(error, FileNotFoundError):
            return StoreError(
                f"part {part} vanished while it was read (another command compacted the store?)",
                hint="run the command again",
            )
        return StoreError(
            f"cannot read part {part}: {os.strerror(error.errno)}",
            hint="make the store readable (permissions, the disk it is on)",
        )
    if isinstance(error, (pa.ArrowException, OSError, ValueError)):
        detail = " ".join(str(error).split()) or type(error).__name__
        return CorruptPart(part, f"{type(error).__name__}: {detail}")
    raise error  # a bug of ours, not the part's


def move_aside(part: Path) -> Path:
    """Move a corrupt part into its table's CORRUPT_FOLDER (never overwriting an earlier one there)."""
    aside = part.parent / CORRUPT_FOLDER
    with disk_errors(part.parent):
        aside.mkdir(exist_ok=True)
        target = aside / part.name
        for copy in itertools.count(1):
            if not target.exists():
                break
            target = aside / f"{part.stem}.{copy}{part.suffix}"
        os.replace(part, target)
    return target
