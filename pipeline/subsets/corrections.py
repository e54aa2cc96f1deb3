"""What an audit concluded of each released item, in the form a subset's own writer needs to publish a
corrected dataset in its benchmark's format (SURGE's JSON list, CRUXEval's JSONL, CRUXEval-X's files).

Every audited item gets a status, as GSM8K-Platinum publishes its cleaning: ``kept`` (reproduced, or not run
here, which says nothing against it), ``corrected`` (a label our run contradicts and we can stand behind: it
ended normally and its repeats agreed) or ``flagged`` (not reproduced, and not rewritten: an explained cause,
a vacuous check, a failed self-check whose right answer a run does not give).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from pipeline.records import Frozen

Status = Literal["kept", "corrected", "flagged"]


class Erratum(Frozen):
    """One audited label: its status, class and evidence, and what our best environment says instead."""

    subset: str
    index: int
    item_id: str
    location: str
    language: str = ""
    status: Status
    audit_class: str
    reason: str
    evidence: str
    released_label: str
    our_label: str | None  # None: no run gave one (cannot build, not run, ...)
    environment: str | None  # the profile of the row kept, with its run id
    corrected: bool

    def note(self) -> dict[str, str | None]:
        """What a corrected or flagged record carries in the corrected dataset."""
        return {
            "status": self.status,
            "class": self.audit_class,
            "reason": self.reason,
            "environment": self.environment,
            "by": "surge audit",
        }


# (a released file, its audited items by index in that file) -> the file's text, corrected labels swapped in
DatasetWriter = Callable[[Path, Mapping[int, Erratum]], str]
