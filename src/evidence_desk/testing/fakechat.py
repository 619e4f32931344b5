"""The OpenAI Chat Completions wire, and what both OpenAI protocols write alike.

`chat_body` writes a turn as `/v1/chat/completions` answers it. OpenAI's error bodies
(`{"error": {"message", "type", "param", "code"}}`), its model list and its rate-limit
headers (`retry-after-ms`, `retry-after`, `x-ratelimit-{limit,remaining,reset}-{requests,
tokens}` with Go durations) are the same on the Responses API, which `fakeresponses.py`
takes from here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from .fakebodies import (
    NewId,
    Problem,
    RateLimit,
    Said,
    Turn,
    Usage,
    Wire,
    limit_values,
)

OPENAI_LIMITS = ("requests", "tokens")

_ERRORS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "not_found"),
    429: ("requests", "rate_limit_exceeded"),
}

_QUOTA = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, read the docs: "
    "https://platform.openai.com/docs/guides/error-codes/api-errors."
)


def chat_body(new_id: NewId, request: dict[str, Any], turn: Turn, usage: Usage) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None}
    finish = "tool_calls" if turn.calls else "stop"
    if turn.stop == "refused":
        message.update(content=None, refusal=turn.text)
    elif turn.stop == "cut_off":
        finish = "length"
    elif turn.stop == "filtered":
        message["content"] = turn.text or None
        finish = "content_filter"
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning  # DeepSeek's and vLLM's field
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": new_id("call_"),
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.args if call.as_object else call.arguments,
                },
            }
            for call in turn.calls
        ]
    prompt_details: dict[str, int] = {"cached_tokens": usage.cached}
    if usage.written:
        prompt_details["cache_write_tokens"] = usage.written
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", ""),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": usage.input,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
            "prompt_tokens_details": prompt_details,
            "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
        },
    }


def openai_error(new_id: NewId, said: Said) -> dict[str, Any]:
    usual = _ERRORS.get(
        said.status, ("server_error" if said.status >= 500 else "invalid_request_error", None)
    )
    kind, code = (said.kind, said.code) if said.kind is not None else usual
    return {"error": {"message": said.message, "type": kind, "param": said.param, "code": code}}


def openai_models(names: Sequence[str]) -> dict[str, Any]:
    data = [{"id": name, "object": "model", "created": 0, "owned_by": "fake"} for name in names]
    return {"object": "list", "data": data}


def go_duration(seconds: float) -> str:
    """A duration as OpenAI's rate-limit headers write it (Go's style): `20ms`, `1.5s`, `6m0s`."""
    if seconds < 1:
        return f"{math.ceil(seconds * 1000)}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours or minutes:
        text = f"{int(minutes)}m{text}"
    return f"{int(hours)}h{text}" if hours else text


def openai_rate_headers(rate: RateLimit) -> dict[str, str]:
    """The headers an OpenAI 429 carries for what `rate` says."""
    headers: dict[str, str] = {}
    if rate.retry_after is not None:
        headers["retry-after-ms"] = str(math.ceil(rate.retry_after * 1000))
        headers["retry-after"] = str(math.ceil(rate.retry_after))
    for limit, values in limit_values(rate, OPENAI_LIMITS, "OpenAI", go_duration):
        headers.update({f"x-ratelimit-{k}-{limit}": v for k, v in values.items()})
    return headers


def openai_problem(
    problem: Problem, model: str, context: tuple[int, int], rate: RateLimit, *, chat: bool
) -> Said:
    """What OpenAI answers for each `Problem`; only the context overflow differs by API."""
    if problem == "quota":
        return Said(429, _QUOTA, "insufficient_quota", "insufficient_quota")
    if problem == "unknown_model":
        said = f"The model `{model}` does not exist or you do not have access to it."
        return Said(404, said, "invalid_request_error", "model_not_found")
    if problem == "context":
        tokens, window = context
        said = (
            f"This model's maximum context length is {window} tokens. However, your "
            f"messages resulted in {tokens} tokens. Please reduce the length of the messages."
            if chat
            else "Your input exceeds the context window of this model. Please adjust your "
            "input and try again."
        )
        param = "messages" if chat else "input"
        return Said(400, said, "invalid_request_error", "context_length_exceeded", param)
    limit = next(iter(rate.exhausted), "requests")
    said = f"Rate limit reached for {model} on {limit}. Please try again later."
    return Said(429, said, limit, "rate_limit_exceeded", headers=openai_rate_headers(rate))


def _chat_problem(problem: Problem, model: str, context: tuple[int, int], rate: RateLimit) -> Said:
    return openai_problem(problem, model, context, rate, chat=True)


WIRE = Wire(
    endpoint="/v1/chat/completions",
    base_path="/v1",
    id_header="x-request-id",
    body=chat_body,
    error=openai_error,
    models=openai_models,
    rate_headers=openai_rate_headers,
    problem=_chat_problem,
)
