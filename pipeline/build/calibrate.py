"""tc calibration: each sized template's CPU time measured over a short ladder of sizes, stored.

The build draws tc instances for time bins (spread.py) by solving a size from these points. A
calibration is content-addressed: its id hashes the template's script and ladder, the profile, the
backend and the identity of the toolchain the runs use (sandboxes/identity.py), so a rerun reuses it
and a changed script or a new Python makes a new one. Its runs go through the runs table like any other
(the same run ids, so they are not executed twice either).

A template's ladder stops at the first size past ``BUDGET_S`` (larger sizes are extrapolated, spread.py)
or at the first run that fails: that template then reaches only the sizes measured before it. A build
whose target has only rows under 0.1 s (a small ``--n``: the demo, tests) stops its ladders past
``QUICK_BUDGET_S`` instead and pays a few seconds; the budget is part of the id, so such a calibration is
never taken for a full one.
"""

from __future__ import annotations

import random

from pydantic import computed_field

from pipeline.build import failures
from pipeline.build.execute import execute
from pipeline.build.records import BuildConfig, TemplateTimes
from pipeline.errors import SandboxUnavailable
from pipeline.records import (
    Frozen,
    Language,
    Limits,
    PhaseLimits,
    Program,
    ProgramFile,
    RunRequest,
    RunResult,
    Verdict,
    content_id,
)
from pipeline.store import Store, Table
from pipeline.templates.base import ScriptTemplate

CALIBRATION_TABLE = "template_calibration"
CALIBRATION_VERSION = 2  # bump when how points are measured changes: older calibrations are not reused
BUDGET_S = 1.5  # a ladder stops after its first point past this many CPU seconds
QUICK_BUDGET_S = 0.1  # ... or this many, when the build wants only rows under 0.1 s (small builds, tests)
LIMITS = Limits(run=PhaseLimits(cpu_s=20.0, wall_s=600.0))  # wall: the cores are shared


class Calibration(Frozen):
    """One template's measured (size, CPU seconds) points under one toolchain."""

    template: str
    template_digest: str
    scale: str
    profile: str
    backend: str
    toolchain_id: str
    budget_s: float = BUDGET_S
    # two columns, not (size, seconds) pairs: a Parquet list holds one type, and pairs came back as ints
    sizes: tuple[int, ...]
    cpu_s: tuple[float, ...]
    stopped: str = ""  # why the ladder ended before its last size ('' when it ran to the end)

    @property
    def points(self) -> tuple[tuple[int, float], ...]:
        """(size, CPU seconds) in ladder order."""
        return tuple(zip(self.sizes, self.cpu_s, strict=True))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def calibration_id(self) -> str:
        return content_id(
            "calibration",
            CALIBRATION_VERSION,
            self.template_digest,
            self.scale,
            self.profile,
            self.backend,
            self.toolchain_id,
            self.budget_s,
        )


def budget_for(bins: set[str]) -> float:
    """How far the ladders must go: a build that wants only quick rows needs no long points."""
    return QUICK_BUDGET_S if bins <= {"<0.1s"} else BUDGET_S


def calibration_table(store: Store) -> Table[Calibration]:
    return store.table(CALIBRATION_TABLE, Calibration, "calibration_id")


def sized_templates(templates: tuple[ScriptTemplate, ...]) -> list[ScriptTemplate]:
    return [t for t in templates if t.scale is not None]


def request(template: ScriptTemplate, size: int, config: BuildConfig) -> RunRequest:
    from sandboxes.profiles import get_profile

    assert template.scale is not None
    argv = template.scale.argv(random.Random(f"calibrate:{template.fid}:{size}"), size)
    program = Program(
        language=Language.PYTHON,
        files=(ProgramFile(path=template.fid, content=template.script()),),
        entry=template.fid,
        argv=argv,
        origin={"subset": config.subset, "template": template.fid, "calibration": str(size)},
    )
    return RunRequest(program=program, profile=get_profile(config.profile), limits=LIMITS)


def probe(template: ScriptTemplate, config: BuildConfig) -> tuple[str, str]:
    """(backend, toolchain id) the calibration runs will use: asked of the sandbox layer, nothing run."""
    from sandboxes.identity import identify

    assert template.scale is not None
    found = identify([request(template, template.scale.low, config)], config.backend, config.unsafe)[0]
    return found.backend, found.toolchain_id


def empty(
    template: ScriptTemplate, config: BuildConfig, backend: str, toolchain: str, budget_s: float
) -> Calibration:
    """The calibration a template would get here, before any point is measured."""
    assert template.scale is not None
    digest = content_id("template", template.script())
    return Calibration(
        template=template.fid,
        template_digest=digest,
        scale=template.scale.describe(),
        profile=config.profile,
        backend=backend,
        toolchain_id=toolchain,
        budget_s=budget_s,
        sizes=(),
        cpu_s=(),
    )


def wanted(
    templates: tuple[ScriptTemplate, ...], config: BuildConfig, budget_s: float
) -> dict[str, Calibration]:
    """fid -> an empty calibration carrying the id this machine needs, for each sized template."""
    sized = sized_templates(templates)
    if not sized:
        return {}
    backend, toolchain = probe(sized[0], config)
    return {t.fid: empty(t, config, backend, toolchain, budget_s) for t in sized}


def calibrated(
    store: Store, config: BuildConfig, templates: tuple[ScriptTemplate, ...], budget_s: float = BUDGET_S
) -> BuildConfig:
    """The config with the calibrations the plan solves sizes from, measuring what is not stored yet;
    unchanged when no template has a size parameter (SURGE's own scripts: used round robin)."""
    needed = wanted(templates, config, budget_s)
    if not needed:
        return config
    table = calibration_table(store)
    known = table.existing_ids()
    missing = [t for t in sized_templates(templates) if needed[t.fid].calibration_id not in known]
    table.append(_measure(store, config, missing, needed))
    table.flush()
    ids = sorted(c.calibration_id for c in needed.values())
    found = {c.calibration_id: c for c in table.records(where={"calibration_id": ids})}
    times = tuple(
        TemplateTimes(template=fid, sizes=found[c.calibration_id].sizes, cpu_s=found[c.calibration_id].cpu_s)
        for fid, c in needed.items()
        if c.calibration_id in found
    )
    return config.model_copy(
        update={"calibration": content_id("calibrations", ids), "calibration_times": times}
    )


def _measure(
    store: Store, config: BuildConfig, templates: list[ScriptTemplate], needed: dict[str, Calibration]
) -> list[Calibration]:
    """Run the ladders in rounds (one size of every unfinished template per round, in one batch)."""
    points: dict[str, list[tuple[int, float]]] = {t.fid: [] for t in templates}
    stopped: dict[str, str] = {}
    for step in range(max((len(_ladder(t)) for t in templates), default=0)):
        active = [t for t in templates if t.fid not in stopped and step < len(_ladder(t))]
        if not active:
            break
        sizes = [_ladder(t)[step] for t in active]
        requests = [request(t, size, config) for t, size in zip(active, sizes, strict=True)]
        runs = execute(store, requests, config.backend, config.unsafe, config.workers)
        for template, size, run in zip(active, sizes, runs, strict=True):
            _ours(run)
            if run.verdict is not Verdict.OK:
                stopped[template.fid] = f"{run.verdict.value} at size {size}"
                continue
            seconds = cpu_s(run)
            points[template.fid].append((size, round(seconds, 4)))
            budget_s = needed[template.fid].budget_s
            if seconds > budget_s and step + 1 < len(_ladder(template)):
                stopped[template.fid] = f"past {budget_s} s at size {size}"
    return [
        needed[t.fid].model_copy(
            update={
                "sizes": tuple(size for size, _ in points[t.fid]),
                "cpu_s": tuple(seconds for _, seconds in points[t.fid]),
                "stopped": stopped.get(t.fid, ""),
            }
        )
        for t in templates
    ]


def _ladder(template: ScriptTemplate) -> tuple[int, ...]:
    return template.scale.ladder if template.scale is not None else ()


def cpu_s(run: RunResult) -> float:
    phase = run.run
    return 0.0 if phase is None else phase.cpu_user_s + phase.cpu_sys_s


def _ours(run: RunResult) -> None:
    """A calibration the sandbox could not run is ours: the build stops with the fix, nothing stored."""
    kind = failures.of_run(run)
    if kind is not None:
        reason, fix = failures.describe(kind, 1, failures.run_detail([run]))
        raise SandboxUnavailable(f"tc calibration: {reason}", hint=fix)
