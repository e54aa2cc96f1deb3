"""Reading a refusal for length: does the request not fit the model's context, and is the prompt alone why?

OpenAI-compatible servers refuse such a request with HTTP 400 and words of their own:
- llama-cpp-python, vLLM and OpenAI: "This model's maximum context length is 2048 tokens. However, you
  requested 6144 tokens (2048 in the messages, 4096 in the completion)" (vLLM's newer releases: "... you
  requested 2100 tokens in the messages"); llama-cpp-python caps max_tokens itself, so it refuses only a
  prompt that fills the context alone;
- llama.cpp's own server: an error with ``n_prompt_tokens`` and ``n_ctx``.

The two causes are not the same failure. A prompt longer than the whole context is the model's limit:
asking again never helps, and the item is what the model could not take. A prompt that fits, refused
because the prompt plus ``max_tokens`` does not, is a setting of ours (SURGE_LLM_MAX_TOKENS).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_CONTEXT = re.compile(r"maximum context length is (\d+)")
_PROMPT = (
    re.compile(r"\((\d+) in the messages"),
    re.compile(r"(\d+) tokens in the messages"),
    re.compile(r"\((\d+) in your prompt"),
    re.compile(r"has (\d+) input tokens"),
)


@dataclass(frozen=True)
class Overflow:
    prompt_tokens: int
    context_tokens: int

    @property
    def prompt_alone(self) -> bool:
        """Is the prompt by itself too long (no room left for one token of answer)?"""
        return self.prompt_tokens >= self.context_tokens


def context_overflow(status: int, body: str) -> Overflow | None:
    """The sizes a 4xx error body gives for a request that does not fit the context; None if it is no such
    refusal, or does not say how long the prompt was."""
    if not 400 <= status < 500:
        return None
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return None
    if not isinstance(error, dict):
        return None
    if isinstance(error.get("n_prompt_tokens"), int) and isinstance(error.get("n_ctx"), int):
        return Overflow(error["n_prompt_tokens"], error["n_ctx"])
    message = str(error.get("message", ""))
    context = _CONTEXT.search(message)
    prompt = next((found for pattern in _PROMPT if (found := pattern.search(message))), None)
    if context is None or prompt is None:
        return None
    return Overflow(int(prompt[1]), int(context[1]))
