"""An OpenAI-compatible chat-completions client: bounded, retrying, cached, accounted."""

from pipeline.llm.client import ChatReply, LLMClient, Usage
from pipeline.llm.settings import LLMSettings

__all__ = ["ChatReply", "LLMClient", "LLMSettings", "Usage"]
