"""The build's own records and store tables: the plan, each item's outcome, and candidate rows.

A build is identified by ``build_key`` (a hash of everything that decides its rows except ``n``: subset,
seed, profile, repeats, template set), so a larger ``--n`` extends the same build and a rerun skips every
item that already has an outcome. Tables (all append-only, content-addressed):

    build_plan        BuildItem: one planned upstream item (a template instance), with its batch number
    build_outcomes    BuildOutcome: kept or dropped, with the reason (nothing is dropped silently)
    build_candidates  DatasetRow: the rows a kept item made; the first ``n`` in item order become the
                      subset's rows in the ``dataset`` table
    llm_spend         LLMSpend: what one batch's refactors asked of the LLM in one command's run (the
                      run's budget is counted over these rows, and the summary's figures come from them)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, computed_field

from pipeline.dataset_rows import DatasetRow
from pipeline.llm.budget import Budget
from pipeline.llm.settings import LLMSettings
from pipeline.records import Frozen, Program, content_id, default_backend

if (
    TYPE_CHECKING
):  # annotations only: Arrow (pipeline.store) loads when a build runs, not when the registry does
    from pipeline.store import Store, Table

PLAN_TABLE = "build_plan"
OUTCOME_TABLE = "build_outcomes"
CANDIDATE_TABLE = "build_candidates"
SPEND_TABLE = "llm_spend"
# tc: two copies whose CPU times are within this fraction of each other time an instance; wider apart, the
# copies up to ``repeats`` are run and the median taken over them all (pipeline/build/manual.py). The rule
# is hashed into a timed build's key.
TIMING_AGREEMENT = 0.10
TIMING_RULE = f"2 copies, up to repeats past {TIMING_AGREEMENT:.0%} apart"


class TemplateTimes(Frozen):
    """tc: one template's calibration as the plan reads it, (size, CPU seconds) in two columns."""

    template: str
    sizes: tuple[int, ...]
    cpu_s: tuple[float, ...]

    @property
    def points(self) -> tuple[tuple[int, float], ...]:
        return tuple(zip(self.sizes, self.cpu_s, strict=True))


class BuildConfig(Frozen):
    """What decides a build's rows (hashed into build_key), plus how to run it (not hashed)."""

    subset: str
    seed: int = 0
    profile: str = "default"
    repeats: int = Field(
        default=3,
        ge=1,
        description="tc timing copies at most (2, more only where they disagree); sc/dr run twice",
    )
    templates: str = Field(default="library", description="'library', or a path to SURGE's dataset/")
    backend: str = Field(default_factory=default_backend)
    unsafe: bool = False
    items: str = Field(default="samples", description="refactor subsets: 'samples' or a JSONL/store of items")
    languages: tuple[str, ...] = Field(default=(), description="refactor subsets: only these languages")
    auto_approve: bool = Field(default=False, description="approve runnable candidates without a human")
    batch_size: int = Field(default=16, ge=1)
    workers: int = Field(default=2, ge=1, description="programs run concurrently inside one batch")
    time_mix: str = Field(
        default="surge", description="tc: the time-bin mix to fill (pipeline/build/spread.py)"
    )
    calibration: str = Field(default="", description="tc: digest of the template calibrations planned from")
    calibration_times: tuple[TemplateTimes, ...] = Field(
        default=(), description="tc: the measured points the plan solves sizes from (the digest is hashed)"
    )
    # A timed subset's (tc: the spec's time_bins) copies follow TIMING_RULE, which decides the recorded
    # time and so is part of the key; the build's driver sets it from the spec (steps.calibrate), since
    # these records sit below the subset specs and never look one up.
    timed: bool = Field(default=False, description="tc: instances are timed (set by the build from the spec)")
    # How the LLM is reached and what this run may spend: neither decides a row (the review queue and
    # the response cache key what was asked), so neither is hashed. SecretStr keeps the key out of
    # Prefect's records of the flow's parameters.
    llm: LLMSettings | None = Field(default=None, description="the endpoint (None: SURGE_LLM_* or recorded)")
    budget: Budget = Field(default=Budget(), description="stop asking the LLM once this run spent it")
    llm_run: str = Field(default="", description="the command's run, which a budget is counted over")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def build_key(self) -> str:
        return content_id(
            "build",
            self.subset,
            self.seed,
            self.profile,
            self.repeats,
            self.templates,
            self.items,
            self.languages,
            # a calibrated plan (tc) depends on its bin mix and the measured times; others keep their keys
            *((self.time_mix, self.calibration) if self.calibration else ()),
            *self._timing_rule(),
        )

    def _timing_rule(self) -> tuple[str, ...]:
        """A timed subset's rule for how many copies time an instance (it decides the recorded time)."""
        return (TIMING_RULE,) if self.repeats > 2 and self.timed else ()


class BuildItem(Frozen):
    """One planned item: a template instance (sc/tc: script + argv; dr: a snippet for the matrix)."""

    build_key: str
    subset: str
    index: int = Field(description="position in the build's deterministic sequence of instances")
    batch: int
    template: str = Field(description="the template's fid (script) or name (dr snippet)")
    domain: str = ""
    template_origin: str = Field(default="library", description="'library' or 'surge-release'")
    template_digest: str = Field(description="content hash of the template text: the upstream 'commit'")
    program_json: str = Field(default="", description="the Program as JSON (manual implementation)")
    source_item_json: str = Field(default="", description="the upstream SourceItem as JSON (refactor)")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def item_id(self) -> str:
        return content_id("build-item", self.build_key, self.index, self.program_json, self.source_item_json)

    def program(self) -> Program:
        return Program.model_validate_json(self.program_json)


class BuildOutcome(Frozen):
    """What became of one item: kept (with the rows it made) or dropped (with the reason)."""

    build_key: str
    subset: str
    item_id: str
    index: int
    status: Literal["kept", "dropped"]
    reason: str = Field(default="", description="why it was dropped, e.g. 'timeout', 'non-deterministic'")
    row_ids: tuple[str, ...] = ()
    run_ids: tuple[str, ...] = ()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def outcome_id(self) -> str:
        return content_id("build-outcome", self.build_key, self.item_id)


class LLMSpend(Frozen):
    """What one batch's refactors asked of the LLM during one command's run (``run``)."""

    run: str
    build_key: str
    subset: str
    batch: int
    requests: int = Field(description="HTTP requests sent, retries included")
    cache_hits: int = Field(description="answers read from the response cache: nothing asked")
    retries: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    budget_stopped: int = Field(default=0, description="items the budget stopped before their refactor ended")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def spend_id(self) -> str:
        return content_id("llm-spend", self.run, self.build_key, self.batch)


def plan_table(store: Store) -> Table[BuildItem]:
    return store.table(PLAN_TABLE, BuildItem, "item_id")


def outcome_table(store: Store) -> Table[BuildOutcome]:
    return store.table(OUTCOME_TABLE, BuildOutcome, "outcome_id")


def candidate_table(store: Store) -> Table[DatasetRow]:
    return store.table(CANDIDATE_TABLE, DatasetRow, "row_id")


def spend_table(store: Store) -> Table[LLMSpend]:
    return store.table(SPEND_TABLE, LLMSpend, "spend_id")
