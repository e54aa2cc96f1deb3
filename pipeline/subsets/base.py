"""What a subset is: one small spec per subset (``pipeline/subsets/<name>.py``) plus a registry line.

A spec carries everything the stages need to know about a subset and nothing they can derive:
its category number and how the release spells the category key, the construction method that builds it,
the label protocol, the metric SURGE scores it with, the ``custom_features`` keys the release uses and the
few-shot count of its prompts. Audit, build and export read these fields; none keeps a per-subset table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pipeline.records import LabelProtocol


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
    category_in_release: int | None = None  # what the released file says, where it differs (cl: 1)

    @property
    def released_category(self) -> int:
        return self.category if self.category_in_release is None else self.category_in_release
