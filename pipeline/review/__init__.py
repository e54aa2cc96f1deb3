"""The human review queue: refactor candidates wait here until a person approves, edits or rejects them."""

from pipeline.review.queue import Entry, ReviewQueue, State

__all__ = ["Entry", "ReviewQueue", "State"]
