"""An OpenAI-compatible chat-completions client: bounded, retrying, cached, accounted.

The client (and httpx under it) loads at the first use of a name below, not when the package is imported:
the build's records name the settings and the budget, and every command's parser imports those.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.llm.budget import Budget
    from pipeline.llm.client import ChatReply, LLMClient, Usage
    from pipeline.llm.settings import LLMSettings

__all__ = ["Budget", "ChatReply", "LLMClient", "LLMSettings", "Usage"]
_HOME = {
    "Budget": "pipeline.llm.budget",
    "ChatReply": "pipeline.llm.client",
    "LLMClient": "pipeline.llm.client",
    "LLMSettings": "pipeline.llm.settings",
    "Usage": "pipeline.llm.client",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'pipeline.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOME[name]), name)
