"""The show stage: one run of the store, whole — what the program printed, its phases, verdict and
provenance."""

from __future__ import annotations

import pyarrow.compute as pc
from pydantic import ConfigDict

from pipeline.errors import ConfigurationError
from pipeline.observe import Observer
from pipeline.records import RunResult
from pipeline.stage_results import StageResult
from pipeline.stages.options import ShowOptions
from pipeline.store import Store

# The most candidates an ambiguous prefix lists (the rest are counted): the refusal stays one line.
SHOWN_CANDIDATES = 5


class ShowResult(StageResult, RunResult):
    """The run as stored (``pipeline.records.RunResult``), with the stage's failures and exit code."""

    model_config = ConfigDict(frozen=False)


def show(options: ShowOptions, *, observer: Observer | None = None) -> ShowResult:
    """The run ``options.run_id`` names (a unique prefix will do), or the latest with ``last``."""
    if not options.last and not options.run_id:
        raise ConfigurationError("no run to show", hint="give a run id (or a prefix of one), or last=True")
    found = find_run(Store.existing(options.store), options.run_id, options.last)
    return ShowResult(**{name: getattr(found, name) for name in RunResult.model_fields})


def find_run(store: Store, prefix: str | None, last: bool) -> RunResult:
    """The one run ``prefix`` names (or the latest); an unknown or ambiguous prefix is refused with the
    candidates, never a guess."""
    ids = store.runs.read(columns=["run_id", "provenance"])
    if ids.num_rows == 0:
        raise ConfigurationError(f"no runs in {store.root}", hint="run `surge run PROGRAMS.jsonl` first")
    if last:
        started = pc.struct_field(ids["provenance"], "started_at")
        run_id = str(ids["run_id"][pc.index(started, pc.max(started)).as_py()].as_py())
    else:
        run_id = unique_match(ids["run_id"].to_pylist(), prefix or "")
    (result,) = store.runs.records(where={"run_id": run_id})
    return result


def unique_match(run_ids: list[str], prefix: str) -> str:
    matches = sorted({run_id for run_id in run_ids if run_id.startswith(prefix)}) if prefix else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ConfigurationError(
            f"no run id starts with {prefix!r}",
            hint="copy an id from `surge stats` or `surge show --last`, or pass the store it is in (--store)",
        )
    shown = ", ".join(matches[:SHOWN_CANDIDATES])
    more = f" and {len(matches) - SHOWN_CANDIDATES} more" if len(matches) > SHOWN_CANDIDATES else ""
    raise ConfigurationError(
        f"{prefix!r} names {len(matches)} runs: {shown}{more}", hint="give more characters of the id"
    )
