"""Moved to pipeline/scoring/metrics.py (issue 13), the one home of SURGE's metrics; audit imports hold."""

from pipeline.scoring.metrics import metric_for, score

__all__ = ["metric_for", "score"]
