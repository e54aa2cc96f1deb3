"""Scores as each record's subset spec says: the metric a label is compared with, and how a model's
reply is scored.

The specs (pipeline/subsets/<name>.py) are built from the rules of metrics.py and surge_eval.py, so those
two never look a spec up; the functions here take a record or a subset's name, find its spec in the
registry and ask it. An unknown subset is refused (ConfigurationError), never scored by default.
"""

from __future__ import annotations

from typing import Any

from pipeline.scoring.metrics import Metric
from pipeline.subsets import subset_spec
from sources.surge_release import ReleasedRecord


def metric_for(record: ReleasedRecord) -> tuple[str, Metric]:
    """The metric the record's labels are compared with, by its subset's spec."""
    return subset_spec(record.subset).metric(record)


def score(record: ReleasedRecord, output: str) -> tuple[str, float]:
    name, metric = metric_for(record)
    return name, float(metric(output, record.gt))


def equal_under_metric(record: ReleasedRecord, output: str) -> str:
    """The note "equal under SUBSET's metric (NAME)" where the record's subset scores labels with an
    equality (``SubsetSpec.metric_is_equality``) and it finds ``output`` equal to the label; else ""."""
    if not subset_spec(record.subset).metric_is_equality:
        return ""
    name, metric = metric_for(record)
    return f"equal under {record.subset}'s metric ({name})" if metric(output, record.gt) == 1.0 else ""


def score_prediction(subset: str, gt: str, features: dict[str, Any], prediction: str) -> float:
    """The item's score in [0, 1], or NaN where upstream's is NaN (an undefined Spearman rho), as the
    subset's spec scores it."""
    return subset_spec(subset).score_prediction(gt, features, prediction)
