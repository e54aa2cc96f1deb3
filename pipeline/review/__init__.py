"""The human review queue: refactor candidates wait here until a person approves, edits or rejects them.

The queue itself is ``pipeline.review.queue`` (SQLite); where a store's queue lives is said here, light
enough for every command's start-up (the CLI names it as a default before any queue is opened)."""

from pathlib import Path

from pipeline.bounds import DEFAULT_STORE

QUEUE_FILE = "review.db"


def queue_of(store_root: Path) -> Path:
    """Where a store's review queue lives: the one place `surge build`, `surge refactor` and `surge review`
    look for it (a queue elsewhere is reached with --db)."""
    return Path(store_root) / QUEUE_FILE


DEFAULT_REVIEW_DB = queue_of(DEFAULT_STORE)  # where `surge build` leaves candidates for review by default
