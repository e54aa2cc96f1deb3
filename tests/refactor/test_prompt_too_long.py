"""A prompt longer than the model's context: the model's limit (the item's failure), told apart from a
max_tokens of ours that does not fit, in the words each server uses; then the client and the repair loop.

The bodies are those the servers send (llama-cpp-python 0.3.36's was read off the real server in
tests/llm/test_standin_shape.py; vLLM's and llama.cpp's are their documented forms).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.build.failures import Ours, of_refactor
from pipeline.errors import LLMError, PromptTooLong
from pipeline.llm.overflow import context_overflow
from pipeline.refactor.loop import RepairLoop
from tests.refactor.helpers import client_for, executor, mceval_item
from tests.refactor.openai_replay import ReplayServer, Reply, code

HELLO = [{"role": "user", "content": "say hi"}]


def llama_cpp_python(prompt: int, context: int, completion: int = 4096) -> dict[str, object]:
    return {
        "message": f"This model's maximum context length is {context} tokens. However, you requested "
        f"{prompt + completion} tokens ({prompt} in the messages, {completion} in the completion). "
        "Please reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }


VLLM_NEWER = {
    "message": "This model's maximum context length is 4096 tokens. However, you requested 4100 tokens "
    "in the messages, Please reduce the length of the messages.",
    "type": "BadRequestError",
    "code": 400,
}
LLAMA_CPP = {
    "code": 400,
    "message": "request (4476 tokens) exceeds the available context size (4096 tokens)",
    "type": "exceed_context_size_error",
    "n_prompt_tokens": 4476,
    "n_ctx": 4096,
}


@pytest.mark.parametrize(
    ("status", "error", "sizes"),
    [
        (400, llama_cpp_python(2300, 2048), (2300, 2048)),
        (400, llama_cpp_python(900, 2048), (900, 2048)),  # vLLM's older wording too: max_tokens is why
        (400, VLLM_NEWER, (4100, 4096)),
        (400, LLAMA_CPP, (4476, 4096)),
        (400, {"message": "The model `x` does not exist", "code": "model_not_found"}, None),
        (500, llama_cpp_python(2300, 2048), None),  # a server error is never the prompt's length
        (400, {"message": "maximum context length is 2048 tokens"}, None),  # no prompt size: cannot tell
    ],
)
def test_the_sizes_are_read_from_each_servers_words(
    status: int, error: dict[str, object], sizes: tuple[int, int] | None
) -> None:
    found = context_overflow(status, json.dumps({"error": error}))
    assert (found and (found.prompt_tokens, found.context_tokens)) == sizes
    assert context_overflow(400, "not json") is None


def test_a_prompt_longer_than_the_context_is_prompt_too_long_and_not_retried(tmp_path: Path) -> None:
    refusal = Reply(status=400, error=llama_cpp_python(2300, 2048))
    with ReplayServer([refusal, Reply("never")]) as server:
        with pytest.raises(PromptTooLong, match="2300 tokens") as caught:
            client_for(server, tmp_path).chat(HELLO)
        assert len(server.requests) == 1  # never retried: the same prompt is refused the same way
    assert (caught.value.prompt_tokens, caught.value.context_tokens) == (2300, 2048)


def test_a_max_tokens_that_does_not_fit_is_ours_with_the_setting_to_change(tmp_path: Path) -> None:
    refusal = Reply(status=400, error=llama_cpp_python(900, 2048))
    with ReplayServer([refusal]) as server, pytest.raises(LLMError) as caught:
        client_for(server, tmp_path).chat(HELLO)
    assert not isinstance(caught.value, PromptTooLong)
    assert "SURGE_LLM_MAX_TOKENS" in caught.value.hint and "1148 tokens" in caught.value.hint


def test_a_conversation_grown_past_the_context_fails_the_item_as_its_own(tmp_path: Path) -> None:
    broken = "def add1(a, b)\n    return a + b\n\nprint(add1(2, 3))"
    replies = [Reply(code("python", broken)), Reply(status=400, error=llama_cpp_python(2100, 2048))]
    with ReplayServer(replies) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor()).refactor(mceval_item())
    assert outcome.status == "failed" and outcome.reason.startswith("prompt_too_long: ")
    assert [r.problem_kind for r in outcome.rounds] == ["run", "prompt_too_long"]
    assert of_refactor(outcome.reason, recorded=False) is None  # the item's: the build drops it


def test_any_other_refusal_stays_the_endpoints(tmp_path: Path) -> None:
    with ReplayServer([Reply(status=401)]) as server:
        outcome = RepairLoop(client_for(server, tmp_path), executor()).refactor(mceval_item())
    assert outcome.reason.startswith("llm_error: ")
    assert of_refactor(outcome.reason, recorded=False) is Ours.ENDPOINT_ERROR
