"""`surge audit`: the released records' programs run as one planned job, like `surge run`.

Only requests whose run id is not yet in ``store.runs`` are planned, so an interrupted audit resumes where
it stopped; several profiles, bwrap and Docker mixed, are one plan (a batch never mixes backends).
Scoring and classifying happen afterwards in ``pipeline.audit`` (no engine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flows.run_programs import run_job


def audit_flow(
    store_root: Path, plan_id: str, batches: int, workers: int, dask_address: str | None = None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    return run_job(store_root, plan_id, batches, False, workers, dask_address, name="surge-audit")
