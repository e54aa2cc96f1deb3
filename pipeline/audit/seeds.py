"""Pinning a runtime's own seed: the audit's last round, for labels whose own repeats disagreed.

A program whose repeats disagree may follow a seed its runtime draws afresh each run: Python salts the
hash of every str, so a set of strings iterates in another order each run, and a float sum over it
changes its last digits. Where the language's spec names the variable that pins that seed from outside
(``LanguageSpec.seed_environment``: PYTHONHASHSEED), the label's reading runs again under the same profile
with the variable set to each of ``SEED_VALUES``, ``SEED_REPEATS`` times each. The value lives in the
profile's environment, which its profile id hashes: the pinned run has a run id and answers a question
(program, setting, profile) of its own, so no unpinned result is ever served for it, and the store keeps
it like any run.

What the pinned runs show is the label's reason (``SeedTrial.reason``): each value repeats, so the seed
is the cause (which value gives what, which one reproduces the released label); or a value still varies,
so the seed is ruled out and what else in the code can vary the output is named. A language with no such
variable, and a self-check (whose verdict is judged apart), get no round: their reason is as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pipeline.audit.plan import Pair
from pipeline.audit.rows import AuditClass, AuditRow, Conversion
from pipeline.records import EnvironmentProfile, Frozen
from sandboxes.languages import spec_for

# Two values, each run twice: enough to see a value repeat and two values differ, at four executions a
# label and profile. 0 is the value that turns Python's salt off (and Perl's key perturbation).
SEED_VALUES = ("0", "1")
SEED_REPEATS = 2
QUOTE_CHARS = 60  # of an output, in a reason


def seed_variable(conversion: Conversion) -> str | None:
    """The variable that pins this reading's runtime seed, or None: its language has none, or it is a
    self-check."""
    if conversion.plan.check is not None:
        return None
    return spec_for(conversion.language).seed_environment


def pinned_profile(profile: EnvironmentProfile, variable: str, value: str) -> EnvironmentProfile:
    """The profile with the seed's variable set: the same name, a profile id (and so run ids) of its own."""
    return profile.model_copy(update={"env": {**profile.env, variable: value}})


def awaits_pinning(conversion: Conversion, rows: Iterable[AuditRow]) -> bool:
    """Whether a label's rows will be written again after the seed round (its repeats disagreed, and its
    runtime has a seed to pin): until then they are not final."""
    disagreed = any(r.audit_class is AuditClass.NON_DETERMINISTIC for r in rows)
    return disagreed and seed_variable(conversion) is not None


def seed_pairs(
    conversions: Iterable[Conversion], rows: Iterable[AuditRow], profiles: Sequence[EnvironmentProfile]
) -> list[Pair]:
    """(reading, pinned profile) for each label, reading and profile whose row is non-deterministic, once
    per seed value: only labels already found non-deterministic, so the round's cost is bounded by them."""
    varied = {
        (r.record_id, r.variant, r.profile) for r in rows if r.audit_class is AuditClass.NON_DETERMINISTIC
    }
    pairs: list[Pair] = []
    for conversion in conversions:
        variable = seed_variable(conversion)
        if variable is None:
            continue
        for reading in [conversion, *conversion.alternatives()]:
            for profile in profiles:
                if (conversion.record.record_id, reading.variant, profile.name) in varied:
                    pairs += [(reading, pinned_profile(profile, variable, v)) for v in SEED_VALUES]
    return pairs


class PinnedRun(Frozen):
    """One pinned value's run: how often its repeats disagreed, what it printed, whether that is the label."""

    value: str
    run_id: str
    repeats: int
    distinct_outputs: int
    label: str
    reproduces: bool

    @property
    def outcome(self) -> str:
        """`stable in 2 runs`, or `2 distinct outputs in 2 runs`."""
        if self.distinct_outputs == 1:
            return f"stable in {self.repeats} runs"
        return f"{self.distinct_outputs} distinct outputs in {self.repeats} runs"


class SeedTrial(Frozen):
    """The seed round of one label under one profile: every value's run."""

    variable: str
    runs: tuple[PinnedRun, ...]

    @property
    def stable(self) -> bool:
        """Each pinned value repeats: the seed pins the output."""
        return all(run.distinct_outputs == 1 for run in self.runs)

    def reason(self, other_causes: Sequence[str]) -> str:
        """Confirmed (which value gives what, which reproduces the label) or ruled out (and what else in
        the code can vary the output: ``other_causes``, the causes the seed does not govern)."""
        if self.stable:
            return f"varies with {self.variable}; stable with it pinned ({self._gives()}){self._reproduced()}"
        counts = "; ".join(f"{self.variable}={r.value}: {r.outcome}" for r in self.runs)
        ruled_out = f"{self.variable} ruled out: pinned, the output still varies ({counts})"
        if other_causes:
            return f"{ruled_out}; from the code: " + "; ".join(other_causes)
        return (
            f"{ruled_out}; nothing else in the code names a cause (no randomness, clock, threads or listing)"
        )

    def _gives(self) -> str:
        outputs = {run.label for run in self.runs}
        if len(outputs) == 1:
            values = " and ".join(run.value for run in self.runs)
            return f"{self.variable}={values} give the same output, {quote(self.runs[0].label)}"
        return ", ".join(f"{self.variable}={run.value} gives {quote(run.label)}" for run in self.runs)

    def _reproduced(self) -> str:
        values = [run.value for run in self.runs if run.reproduces]
        if not values:
            return "; no pinned value reproduces the released label"
        return f"; {self.variable}={' and '.join(values)} reproduces the released label"

    def evidence(self) -> str:
        """One line per pinned run: its value, run id and outputs, for the row's evidence."""
        return "\n".join(
            f"{self.variable}={r.value}: run {r.run_id}, {r.outcome}: {quote(r.label)}" for r in self.runs
        )


def quote(label: str) -> str:
    """An output on one line, cut to QUOTE_CHARS, in backticks."""
    flat = " ⏎ ".join(line.strip() for line in label.strip().splitlines())
    return f"`{flat[:QUOTE_CHARS]}…`" if len(flat) > QUOTE_CHARS else f"`{flat}`"
