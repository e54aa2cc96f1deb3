"""The template library for manual implementation (sc, tc, dr): see base.py and catalog.py."""

from __future__ import annotations

from pipeline.templates.base import ScriptTemplate, SnippetTemplate, instance_rng
from pipeline.templates.catalog import DR, SC, TC

SCRIPT_TEMPLATES: dict[str, tuple[ScriptTemplate, ...]] = {"sc": SC, "tc": TC}

__all__ = ["DR", "SCRIPT_TEMPLATES", "ScriptTemplate", "SnippetTemplate", "instance_rng"]
