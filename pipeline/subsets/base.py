"""What a subset is: one small spec per subset (``pipeline/subsets/<name>.py``) plus a registry line.

A spec carries everything the stages need to know about a subset and nothing they can derive:
its category number and how the release spells the category key, the language every record is in (if
one), the construction method with its planner and build step (the functions themselves, from
pipeline/build: a spec imports its build, and the build is handed the spec, never looks it up), the
build's profile and limits, how a released record becomes a program (``to_program``), the label
protocol, the metric a label is compared with and how a model's prediction is scored, the
``custom_features`` keys the release uses and the few-shot count of its prompts. Audit, build, export,
score and the release's reader ask these fields (handed the spec, or the catalog made from the specs);
none keeps a per-subset table or names a subset (tests/architecture/test_no_subset_names.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pipeline.records import ExecutionSetting, Frozen, LabelProtocol, Language, Limits, Program
from pipeline.subsets.checks import CheckConvention
from pipeline.subsets.corrections import DatasetWriter
from sources.surge_release import RecordReader, ReleasedRecord, ReleaseSubset

if TYPE_CHECKING:  # names for the build hooks' types: the build imports this module at run time
    from pipeline.build.failures import Built
    from pipeline.build.records import BuildConfig, BuildItem
    from pipeline.dataset_rows import DatasetRow
    from pipeline.store import Store


class Candidate(Frozen):
    """One way to run a released record, where the release leaves it ambiguous (sc's argv)."""

    name: str = Field(description="how this candidate was made, e.g. 'argv from the script's parser'")
    program: Program
    repair: str = Field(
        default="", description="a repair of a release that cannot build (rl), e.g. the binary built; '' none"
    )


class ProgramPlan(Frozen):
    """A released record made runnable: the program, its setting, and the facts the audit needs."""

    language: str = Field(description="the language as reports name it, e.g. 'cpp'")
    program: Program
    setting: ExecutionSetting = ExecutionSetting()
    variant: str = Field(default="as released", description="how the program was made from the record")
    alternatives: tuple[Candidate, ...] = Field(
        default=(),
        description="other readings of an ambiguous record, tried when the first does not reproduce",
    )
    note: str = Field(default="", description="what was inferred, e.g. a run instruction the record lacks")
    recorded_time_s: float | None = Field(default=None, description="the run time SURGE recorded, if any")
    missing: tuple[str, ...] = Field(
        default=(), description="what the run needs and the release lacks, quoted (a file, target or binary)"
    )
    # A self-checking program (protocol self_check): how its harness shows a failed check, and the mutant
    # that proves the check can fail (the program with its expected value altered; None where no alteration
    # could be derived, which the audit says).
    check: CheckConvention | None = Field(default=None, description="None: the label is the output")
    mutant: Program | None = Field(default=None, description="the program with its expected value altered")
    mutation: str = Field(default="", description="how the mutant differs, or why there is none")

    @property
    def probes(self) -> list[Program]:
        """Programs run beside the first reading to judge it: the mutant of a self-check."""
        return [self.mutant] if self.mutant is not None else []

    def candidates(self) -> list[Candidate]:
        return [Candidate(name=self.variant, program=self.program), *self.alternatives]


class Unrunnable(ValueError):
    """A record that is well formed but cannot be run as released: the audit gives it a row with this
    cause and reason: a well-formed record is never refused without a row."""

    def __init__(self, cause: str, reason: str) -> None:
        super().__init__(reason)
        self.cause = cause


# record -> plan; raises ValueError with the reason when the record cannot become a program.
ToProgram = Callable[[ReleasedRecord], ProgramPlan]
# (output, gt) -> similarity in [0, 1]
Metric = Callable[[str, str], float]
# record -> (metric name, metric) the record's labels are compared with (the audit: label against label)
MetricRule = Callable[[ReleasedRecord], tuple[str, Metric]]
# (gt, custom_features, the model's raw reply) -> score in [0, 1], or NaN where SURGE's eval gives NaN
PredictionScorer = Callable[[str, dict[str, Any], str], float]
# How `surge build` makes a subset (docs/build.md "Adding a subset"); the driver (pipeline/build/steps.py)
# hands each hook the spec it came from, so a construction method shared by subsets (ml, cl, bg) reads
# the subset's facts from its argument.
# (spec, config, start, count) -> the build items of instances [start, start + count), fewer when they run out
PlanItems = Callable[["SubsetSpec", "BuildConfig", int, int], "list[BuildItem]"]
# (spec, store, config, items) -> (outcomes, candidate rows, failures of ours: build.failures.OurFailure)
BuildBatch = Callable[["SubsetSpec", "Store", "BuildConfig", "list[BuildItem]"], "Built"]
# (source item, program, the review's extra facts) -> the row's custom_features (a refactor subset's keys)
RowFeatures = Callable[[Any, Program, dict[str, Any]], dict[str, object]]


def per_index(plan_item: Callable[[BuildConfig, int], BuildItem]) -> PlanItems:
    """A planner from a rule for one instance (index -> item), for subsets whose instances never run out."""

    def plan(spec: SubsetSpec, config: BuildConfig, start: int, count: int) -> list[BuildItem]:
        return [plan_item(config, index) for index in range(start, start + count)]

    return plan


class ConstructionMethod(StrEnum):
    """The paper's four methods (SURGE section 3.1, Table 1)."""

    ITERATIVE_REFACTOR = "iterative_refactor"  # ml, cl, bg: LLM refactor, repair, leak guard, review
    REPOSITORY_SAMPLING = "repository_sampling"  # rl: a repository, its run instruction and inputs
    MANUAL_IMPLEMENTATION = "manual_implementation"  # sc, tc, dr: templates with seeded parameters
    INFERENCE_VERIFICATION = "inference_verification"  # fl: prover proposes, the Lean checker decides


@dataclass(frozen=True)
class SubsetSpec:
    name: str  # file name in the release: dataset/<name>.json
    title: str
    category: int  # the paper's category number (cl records carry 1 in the release: see category_in_release)
    category_key: str  # "custom_category", or upstream's misspelling "custom_categoey" (ml, cl, rl)
    construction: ConstructionMethod
    release_size: int  # records in SURGE's release (Table 1)
    protocol: LabelProtocol
    feature_keys: tuple[str, ...]  # custom_features keys the release uses, in its order
    few_shot_examples: int  # examples in sys_3shot (3, but 4 in bg and 6 in dr)
    to_program: ToProgram  # how a released record becomes a program (the subset's run protocol)
    metric: MetricRule  # how a label is compared with the released one (the audit's similarity)
    score_prediction: PredictionScorer  # how a model's reply is scored, as SURGE's eval/main.py does
    category_in_release: int | None = None  # what the released file says, where it differs (cl: 1)
    # The language of every record, where the subset has one (the release's dr, sc, tc, fl name none).
    language: Language | None = None
    # False where SURGE's eval scores the raw reply (fl's JSON): `surge predict` stores it unextracted.
    extracts_answer: bool = True
    # The upstream sources (sources/registry.py names) a refactor or prover build reads its items from.
    upstream_sources: tuple[str, ...] = ()
    # How the dataset picks n rows from a build's candidates in item order (default: the first n);
    # fl balances passing and failing proofs.
    select_rows: Callable[[list[DatasetRow], int], list[DatasetRow]] | None = None
    # False for a subset of ours (e.g. pyver): the release-facing parts (the release's audit, the card's
    # facts about SURGE's eight subsets, the released prompt templates) leave it out.
    upstream_release: bool = True
    # How `surge build` makes the subset (docs/build.md "Adding a subset"): plan_items(spec, config,
    # start, count) -> build items, and build_batch(spec, store, config, items) -> (outcomes, candidate
    # rows, failures of ours, never recorded as outcomes). None: not buildable here, and `surge build`
    # says so.
    plan_items: PlanItems | None = None
    build_batch: BuildBatch | None = None
    build_profile: str = ""  # the profile a build runs under when given `default` ('' = default itself)
    build_limits: Limits | None = None  # a run's limits in the build, where its method lets a subset choose
    # Rows a planned item is expected to give: a build's first round plans n / this many items (later
    # rounds divide by the rows per item measured so far). dr keeps up to two labels of a snippet.
    rows_per_item: float = 1.0
    # A refactor build: the row's custom_features, and whether a failing run is a label (bg: the bug's).
    row_features: RowFeatures | None = None
    labels_failures: bool = False
    # Where the repository keeps the subset's template library (provenance of a built row).
    template_folder: str = ""
    # How a file of the subset's own format is read, for a benchmark whose data is not SURGE's JSON list
    # (examples/surge-cruxeval: a JSONL): (file, its location in reports) -> ReleasedRecords, and
    # QuarantinedRecords with file:line and reason. None: SURGE's dataset/<name>.json reader.
    read_records: RecordReader | None = None
    # How `surge audit --errata` writes a corrected file of the subset's own format (each audited item by
    # its index in the file, with its status). None: SURGE's JSON list (pipeline/audit/errata.py).
    write_corrected: DatasetWriter | None = None
    # The metric is an equality (1: the same value, 0: not), not a similarity: the audit then classes a
    # label whose text differs from our output but which the metric scores 1 as reproduced, and says so
    # (CRUXEval: 'a' and "a" are one literal). A similarity's 1 can hide a real difference (Jaccard of
    # reordered words, Spearman of another increasing list), so SURGE's subsets compare texts only.
    metric_is_equality: bool = False
    # tc: instances are drawn to fill a mix of run-time bins, sizes from a calibration of each template
    # (pipeline/build/spread.py, calibrate.py), and the build summary counts the spread against it.
    time_bins: bool = False

    def release_entry(self) -> ReleaseSubset:
        """What the release's reader needs of the subset (sources/surge_release.py, ``Catalog``)."""
        return ReleaseSubset(category=self.category, language=self.language, reader=self.read_records)

    @property
    def released_category(self) -> int:
        return self.category if self.category_in_release is None else self.category_in_release

    @property
    def refactors(self) -> bool:
        """Its items are upstream programs an LLM refactors (ml, cl, bg): --language picks among theirs."""
        return self.construction is ConstructionMethod.ITERATIVE_REFACTOR

    @property
    def plans_whole_batches(self) -> bool:
        """A build's rounds plan whole batches (the refactor subsets: a batch's items are refactored
        concurrently, and most are dropped where recorded responses answer); the others plan what is
        wanted (pipeline/build/steps.py, round_size)."""
        return self.refactors

    def items_for(self, rows: int) -> int:
        """Items a build expects to need for ``rows`` rows (at least one), at ``rows_per_item`` each; the
        quotient is rounded first, so 19 rows at 1.9 an item are 10 items, not 11 for a float's last bit."""
        return max(1, math.ceil(round(rows / self.rows_per_item, 6)))

    def build_profile_for(self, asked: str) -> str:
        """The profile a build of this subset runs under when ``asked`` is the one on the command line."""
        return self.build_profile if self.build_profile and asked == "default" else asked
