"""`surge pull` argument handling and rendering, without starting Prefect."""

from __future__ import annotations

import pytest

from pipeline.cli import build_parser
from pipeline.commands.pull import render_sources
from pipeline.errors import ConfigurationError
from pipeline.stages.pull import SourcePulled, per_source
from sources.registry import SOURCES

KNOWN = set(SOURCES)


def test_bare_value_applies_to_the_single_source() -> None:
    assert per_source("--mirror", ["file:///srv/McEval"], ["mceval"], KNOWN) == {
        "mceval": "file:///srv/McEval"
    }


def test_named_values_for_several_sources() -> None:
    values = ["mceval=/srv/a=b", "debugbench=file:///srv/DebugBench"]  # '=' inside a path survives
    assert per_source("--mirror", values, ["mceval", "debugbench"], KNOWN) == {
        "mceval": "/srv/a=b",
        "debugbench": "file:///srv/DebugBench",
    }


def test_ambiguous_or_unpulled_values_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="ambiguous"):
        per_source("--commit", ["abc123"], ["mceval", "debugbench"], KNOWN)
    with pytest.raises(ConfigurationError, match="not being pulled"):
        per_source("--mirror", ["ojcode=/srv/OJCode"], ["mceval"], KNOWN)


def test_options_parse_and_failures_render_with_their_fix() -> None:
    args = build_parser().parse_args(["pull", "mceval", "--mirror", "/m", "--commit", "abc", "--cache", "c"])
    assert (args.sources, args.mirror, args.commit, str(args.cache)) == (["mceval"], ["/m"], ["abc"], "c")
    text = render_sources({"ojcode": SourcePulled(error="cannot clone x", hint="pass --mirror")}, args.store)
    assert "FAILED: cannot clone x" in text and "how to fix: pass --mirror" in text
