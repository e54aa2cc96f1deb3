"""Builders shared by the refactor and review tests: items, a client on a replay server, an executor."""

from __future__ import annotations

from pathlib import Path

from pipeline.llm import LLMClient, LLMSettings
from pipeline.records import Language, Limits, PhaseLimits, SourceItem
from pipeline.refactor.execute import Executor
from tests.refactor.fake_backend import FakePythonBackend
from tests.refactor.openai_replay import ReplayServer

# Generous enough for a loaded CI machine (2 shared cores); the endless-loop test waits this long once.
FAST_LIMITS = Limits(run=PhaseLimits(cpu_s=2.0, wall_s=2.5))


def mceval_item(number: int = 1) -> SourceItem:
    return SourceItem(
        source="mceval",
        key=f"Python/{number}",
        language=Language.PYTHON,
        upstream_language="Python",
        upstream_repo="github.com/MCEVAL/McEval",
        upstream_commit="09dec129",
        upstream_path="data/Python.jsonl",
        upstream_locator=str(number),
        licence="CC-BY-SA-4.0",
        fields={
            "prompt": f"def add{number}(a, b):",
            "canonical_solution": "    return a + b",
            "test": f"assert add{number}(2, 3) == 5",
            "entry_point": f"add{number}",
        },
    )


def replay_settings(server: ReplayServer, tmp_path: Path, **kw: object) -> LLMSettings:
    """Settings for a client of the replay server: cache under tmp_path, fast retries; `kw` overrides."""
    values: dict = dict(
        base_url=server.base_url,
        model="replay-1",
        cache_dir=tmp_path / "llm-cache",
        backoff_base_s=0.01,
        backoff_max_s=0.02,
        timeout_s=5.0,
    )
    values.update(kw)
    return LLMSettings(**values)


def client_for(server: ReplayServer, tmp_path: Path, **kw: object) -> LLMClient:
    return LLMClient(replay_settings(server, tmp_path, **kw))


def executor() -> Executor:
    from pipeline.records import EnvironmentProfile

    return Executor(FakePythonBackend(), EnvironmentProfile(name="test"), FAST_LIMITS)
