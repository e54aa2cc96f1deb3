"""This command's Prefect API: the app Prefect's ephemeral mode serves, in a process of its own.

``python -m flows.api_server --port N`` is what ``flows.runtime.LocalApi`` starts; with ``--host 0.0.0.0``
it also serves a cluster whose hosts all set PREFECT_API_URL to it (docs/scale-out.md). It does what
``uvicorn --factory prefect.server.api.server:create_app`` did, with Python's cyclic collector paused while
Prefect's server is imported and built: that start-up allocates millions of objects and the collector
spent 1.7 of its 7 CPU-s re-scanning them (measured with ``gc.callbacks``). What the start-up built is
then frozen, so later collections during the job skip it.

Every command on a machine shares one PREFECT_HOME (``.surge/prefect`` of its folder) and so one SQLite
database. Prefect migrates that database as each server starts; two servers starting at once in a fresh
folder both ran the same alembic step and one died on "duplicate column name" (2 of 4 tries). So the
server migrates the database itself, holding an exclusive lock on a file beside it, and the app is told
not to migrate again: the second server waits for the first's migration (or, the database up to date,
only for alembic's version check) and then starts as usual.
"""

from __future__ import annotations

import argparse
import fcntl
import os
from pathlib import Path

from flows.collector import collector_paused
from flows.runtime import configure_prefect

MIGRATION_LOCK = ".migration.lock"


def migrate_database() -> None:
    """Bring Prefect's database up to date, one server of this PREFECT_HOME at a time."""
    import asyncio

    from prefect.server.database import provide_database_interface

    # flock: released by the kernel when the file closes, also when this process is killed mid-migration.
    with (Path(os.environ["PREFECT_HOME"]) / MIGRATION_LOCK).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        asyncio.run(provide_database_interface().create_db())


def main() -> None:
    parser = argparse.ArgumentParser(description="serve Prefect's API for one surge command")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: this host only)")
    args = parser.parse_args()
    configure_prefect()
    os.environ["PREFECT_API_DATABASE_MIGRATE_ON_START"] = "false"  # migrate_database did, under the lock
    with collector_paused():
        import uvicorn
        from prefect.server.api.server import create_app

        migrate_database()
        # ephemeral: no UI and only the services a client needs. Not final: with FastAPI >= 0.137 that
        # only adds a full collection of the heap just built (0.35 of 3.4 CPU-s to ready, measured).
        app = create_app(ephemeral=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="error", lifespan="on")


if __name__ == "__main__":
    main()
