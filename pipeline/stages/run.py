"""The run stage: execute a JSONL file of programs in sandboxes and store the results as Parquet."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pipeline.errors import ConfigurationError, InputError
from pipeline.observe import Observer, tell, watched_by
from pipeline.programs import (
    ProgramEntry,
    SettingReach,
    load_program_file,
    parse_setting,
    plan_requests,
    with_default_setting,
)
from pipeline.records import ExecutionSetting, QuarantinedRecord
from pipeline.stage_results import StageResult
from pipeline.stages.batches import Batching, JobCounts, execute_requests, run_limits
from pipeline.stages.options import RunOptions
from pipeline.store import Store

BAD_INPUT_EXIT_CODE = 3  # `--strict`: "done, but" some lines were bad


class BadLine(BaseModel):
    """A line of the programs file that was not run, and why (kept in the quarantine table)."""

    location: str
    reason: str


class SettingApplied(SettingReach):
    """Where a default setting applied: a setting is a fact of a toolchain, so a mixed file runs partly
    under it."""

    key: str


class RunSummary(StageResult, JobCounts):
    """What `surge run` did: programs read, runs planned and stored, verdicts, bad lines."""

    programs: int
    bad_lines: list[BadLine] = Field(default_factory=list)
    setting: SettingApplied | None = None
    planned_runs: int
    already_stored: int
    old_rule_rows: int = Field(default=0, description="stored rows whose run ids follow the old rule")
    store: str


def run(options: RunOptions, *, observer: Observer | None = None) -> RunSummary:
    """Execute programs (a JSONL file) in sandboxes; one row per run in the store (`surge run`)."""
    from flows.engine import using_engine
    from sandboxes.identity import identify
    from sandboxes.profiles import get_profile

    profiles = [get_profile(name) for name in (options.profile or ["default"])]
    setting = default_setting(options.setting)
    limits = run_limits(options.cpu_s, options.wall_s, options.memory_mib, options.output_bytes)
    store = Store(options.store)
    entries, bad_lines = programs_to_run(options, store)
    reach = None
    if setting is not None:
        entries, reach = with_default_setting(entries, setting)
    tell(observer, "run", "started", f"{len(entries)} programs")
    with using_engine() as engine, watched_by(observer):
        engine.start_api()  # Prefect's API boots while the requests are planned and written
        planned = plan_requests(entries, profiles, limits, options.repeats)
        requests = identify(planned, options.backend, options.unsafe)
        batching = Batching(
            batch_size=options.batch_size, workers=options.workers, dask_address=options.dask_address
        )
        outcome = execute_requests(store, requests, batching, "surge-run", unsafe=options.unsafe)
    tell(observer, "run", "finished", f"{outcome.written} rows written")
    return RunSummary(
        **outcome.model_dump(),
        programs=len(entries),
        bad_lines=[BadLine(location=q.location, reason=q.reason) for q in bad_lines],
        setting=SettingApplied(key=options.setting, **reach.model_dump())
        if reach and options.setting
        else None,
        store=str(options.store),
        exit_code=BAD_INPUT_EXIT_CODE if (options.strict and bad_lines) else 0,
    )


def programs_to_run(options: RunOptions, store: Store) -> tuple[list[ProgramEntry], list[QuarantinedRecord]]:
    """The file's programs; its bad lines go to the quarantine table, and a file with none is refused."""
    entries, bad_lines = load_program_file(options.programs)
    store.quarantine.append_new(bad_lines)  # the same bad file twice: its records are stored once
    if not entries:
        kept = (
            f" ({len(bad_lines)} bad lines, kept in the quarantine table of {options.store})"
            if bad_lines
            else ""
        )
        raise InputError(
            f"{options.programs} holds no programs to run{kept}",
            hint="write one JSON program per line, e.g. "
            '{"language": "python", "source": "print(1)"} (README: "A program line")',
        )
    return entries, bad_lines


def default_setting(text: str | None) -> ExecutionSetting | None:
    if text is None:
        return None
    try:
        return parse_setting(text)
    except ValueError as error:
        raise ConfigurationError(
            f"--setting {text!r}: {error}", hint="write it as COMPILER-C++NN--OX, e.g. g++-C++14--O2"
        ) from None
