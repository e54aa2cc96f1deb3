"""What a subset is: one small spec per subset (``pipeline/subsets/<name>.py``) plus a registry line.

A spec carries everything the stages need to know about a subset and nothing they can derive:
its category number and how the release spells the category key, the construction method that builds it,
how a released record becomes a program (``to_program``), the label protocol, the metric SURGE scores it
with, the ``custom_features`` keys the release uses and the few-shot count of its prompts. Audit, build
and export read these fields; none keeps a per-subset table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import Field

from pipeline.records import ExecutionSetting, Frozen, LabelProtocol, Program
from sources.surge_release import ReleasedRecord


class Candidate(Frozen):
    """One way to run a released record, where the release leaves it ambiguous (issue 15)."""

    name: str = Field(description="how this candidate was made, e.g. 'argv from the script's parser'")
    program: Program


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

    def candidates(self) -> list[Candidate]:
        return [Candidate(name=self.variant, program=self.program), *self.alternatives]


class Unrunnable(ValueError):
    """A record that is well formed but cannot be run as released: the audit gives it a row with this
    cause and reason (issue 15: never a refusal without a row)."""

    def __init__(self, cause: str, reason: str) -> None:
        super().__init__(reason)
        self.cause = cause


# record -> plan; raises ValueError with the reason when the record cannot become a program.
ToProgram = Callable[[ReleasedRecord], ProgramPlan]


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
    category_in_release: int | None = None  # what the released file says, where it differs (cl: 1)
    # The upstream sources (sources/registry.py names) a refactor or prover build reads its items from.
    upstream_sources: tuple[str, ...] = ()
    # How the dataset picks n rows from a build's candidates in item order (default: the first n);
    # fl balances passing and failing proofs. Typed loosely for the same reason as build_batch.
    select_rows: Callable[[list[Any], int], list[Any]] | None = None
    # False for a subset of ours (e.g. pyver): the release-facing parts (the release's audit, the card's
    # facts about SURGE's eight subsets, the released prompt templates) leave it out.
    upstream_release: bool = True
    # A subset that builds itself (docs/build.md "Adding a subset"): plan_item(config, index) -> BuildItem
    # and build_batch(store, config, items) -> (outcomes, candidate rows, failures of ours: a list of
    # pipeline.build.failures.OurFailure, never recorded as outcomes). Typed loosely: the build's records
    # live in a later module (pipeline/build), imported lazily by the subset's file.
    plan_item: Callable[[Any, int], Any] | None = None
    build_batch: Callable[[Any, Any, list[Any]], tuple[list[Any], list[Any], list[Any]]] | None = None

    @property
    def released_category(self) -> int:
        return self.category if self.category_in_release is None else self.category_in_release
