"""What an audit runs: requests with limits from the record, each label's first profile and expected
time (the adaptive plan), the readings a label gets when its first did not reproduce (no engine here)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from pydantic import Field

from pipeline.audit.rows import REPRODUCED, AuditRow, Conversion
from pipeline.records import EnvironmentProfile, Frozen, Limits, Program, RunRequest
from pipeline.subsets import ProgramPlan


class LimitPolicy(Frozen):
    """The run's limits, raised for a record that says how long it took when its label was made (
    tc labels recorded at 12 s and 143 s ended as timeouts under a flat 10 s)."""

    base: Limits = Limits()
    margin: float = Field(default=2.0, gt=0, description="recorded time x margin = the run's CPU limit")
    cap_s: float = Field(default=300.0, gt=0, description="never more CPU seconds than this per run")

    def for_time(self, recorded_time_s: float | None) -> Limits:
        run = self.base.run
        if recorded_time_s is None or recorded_time_s * self.margin <= run.cpu_s:
            return self.base
        cpu_s = min(self.cap_s, recorded_time_s * self.margin + 1.0)
        wall_s = max(run.wall_s, 2.0 * cpu_s)
        return self.base.model_copy(update={"run": run.model_copy(update={"cpu_s": cpu_s, "wall_s": wall_s})})

    def for_plan(self, plan: ProgramPlan) -> Limits:
        """A run instruction that builds (rl: `g++ *.cpp -o main`, `make`) compiles inside the run phase:
        it gets the compile phase's limits, so a six-file build on a loaded machine is not a timeout."""
        limits = self.for_time(plan.recorded_time_s)
        if plan.program.run_instruction is None:
            return limits
        run, build = limits.run, limits.compile
        raised = {"cpu_s": max(run.cpu_s, build.cpu_s), "wall_s": max(run.wall_s, build.wall_s)}
        return limits.model_copy(update={"run": run.model_copy(update=raised)})


def request_for(
    conversion: Conversion,
    profile: EnvironmentProfile,
    policy: LimitPolicy,
    repeats: int,
    program: Program | None = None,
) -> RunRequest:
    """The request of a reading under a profile (``program``: one of its probes instead, run alike)."""
    return RunRequest(
        program=program or conversion.program,
        setting=conversion.setting,
        profile=profile,
        limits=policy.for_plan(conversion.plan),
        repeats=repeats,
    )


Pair = tuple[Conversion, EnvironmentProfile]


def plan_pairs(pairs: Iterable[Pair], policy: LimitPolicy, repeats: int) -> list[RunRequest]:
    """One request per (record, profile), and one per probe of it (a self-check's mutant); records sharing
    a program share a run id and run once."""
    requests: dict[str, RunRequest] = {}
    for conversion, profile in pairs:
        for program in (conversion.program, *conversion.probes):
            request = request_for(conversion, profile, policy, repeats, program)
            requests.setdefault(request.run_id, request)
    return list(requests.values())


def every_profile(conversions: Iterable[Conversion], profiles: Iterable[EnvironmentProfile]) -> list[Pair]:
    profiles = list(profiles)
    return [(conversion, profile) for profile in profiles for conversion in conversions]


def plan_requests(
    conversions: Iterable[Conversion],
    profiles: Iterable[EnvironmentProfile],
    limits: Limits | LimitPolicy,
    repeats: int,
) -> list[RunRequest]:
    """Every record under every profile (the exhaustive matrix)."""
    policy = limits if isinstance(limits, LimitPolicy) else LimitPolicy(base=limits)
    return plan_pairs(every_profile(conversions, profiles), policy, repeats)


def needs_alternatives(conversion: Conversion, rows: Iterable[AuditRow]) -> bool:
    """Try a record's other readings only where it has some and its first reading did not reproduce."""
    if len(conversion.plan.candidates()) < 2:
        return False
    mine = [r for r in rows if r.record_id == conversion.record.record_id]
    return not mine or any(r.audit_class not in REPRODUCED for r in mine)


def alternative_requests(
    conversions: Iterable[Conversion],
    rows: Iterable[AuditRow],
    profiles: Iterable[EnvironmentProfile],
    policy: LimitPolicy,
    repeats: int,
) -> list[RunRequest]:
    return plan_pairs(alternative_pairs(conversions, rows, profiles), policy, repeats)


def alternative_pairs(
    conversions: Iterable[Conversion], rows: Iterable[AuditRow], profiles: Iterable[EnvironmentProfile]
) -> list[Pair]:
    rows = list(rows)
    pending = [alt for c in conversions if needs_alternatives(c, rows) for alt in c.alternatives()]
    return every_profile(pending, profiles)


# ---------------------------------------------------------------------------------------------
# The adaptive plan: each label first under its subset's likeliest profile, the longest first
# ---------------------------------------------------------------------------------------------

# A program whose time nothing recorded is ordered by its size: 10 kB of source ~ 0.1 s, so a known
# time (stored or recorded) always outranks a guess, and among guesses the bigger program starts first.
GUESSED_S_PER_BYTE = 1e-5


def first_profiles(
    subsets: Iterable[str], profiles: Sequence[EnvironmentProfile], stored: Iterable[AuditRow]
) -> dict[str, EnvironmentProfile]:
    """subset -> the profile its labels run under first: the one under which the store's earlier audits
    reproduced the most distinct labels of that subset; with no such row, the profile named after the
    subset (`surge-<subset>`), else the first profile asked for. Ties go to that fallback order."""
    by_name = {p.name: p for p in profiles}
    reproduced: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in stored:
        if row.profile in by_name and row.audit_class in REPRODUCED:
            reproduced[row.subset][row.profile].add(row.record_id)
    chosen = {}
    for subset in subsets:
        order = fallback_order(subset, profiles)
        tally = reproduced.get(subset, {})
        chosen[subset] = max(order, key=lambda p: (len(tally.get(p.name, ())), -order.index(p)))
    return chosen


def fallback_order(subset: str, profiles: Sequence[EnvironmentProfile]) -> list[EnvironmentProfile]:
    named = [p for p in profiles if p.name == f"surge-{subset}"]
    return [*named, *(p for p in profiles if p not in named)]


def expected_seconds(conversion: Conversion, stored_cpu_s: Mapping[str, float]) -> float:
    """How long a label's run is expected to take: its CPU time in an earlier audit, else the time SURGE
    recorded for it, else a guess from its size (only to order the runs: longest first)."""
    size_bytes = sum(len(f.content) for f in conversion.program.files)
    known = stored_cpu_s.get(conversion.record.record_id, conversion.plan.recorded_time_s)
    return (known or 0.0) + size_bytes * GUESSED_S_PER_BYTE


def stored_cpu(rows: Iterable[AuditRow]) -> dict[str, float]:
    """record id -> the most CPU seconds one of its stored rows took (its compile and one run)."""
    most: dict[str, float] = {}
    for row in rows:
        if row.run_id is not None:
            most[row.record_id] = max(most.get(row.record_id, 0.0), row.cpu_s)
    return most
