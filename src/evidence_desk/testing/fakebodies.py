"""What the fake servers answer: scripted turns, their usage, and each protocol's body.

`fakeproviders.FakeProvider` turns a scripted `Reply` into a `Turn` (the tool calls or text
the "model" wrote, how it ended) and a `Usage`, then into the JSON body its protocol
returns (`chat_body`, `responses_body`, `anthropic_body`), with ids from the server's
`new_id`. Rate-limit headers are written here too, as each provider writes them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from .fakerules import Protocol, response_format, tool_names

# How the turn ended: finished, cut off at the output cap, refused, or filtered.
Stop = Literal["complete", "cut_off", "refused", "filtered"]


class ScriptError(Exception):
    """A scripted reply that cannot be answered for this request; served as a 500."""


RATE_LIMITS: dict[str, tuple[str, ...]] = {
    "chat": ("requests", "tokens"),
    "responses": ("requests", "tokens"),
    "anthropic": ("requests", "tokens", "input-tokens", "output-tokens"),
}
LIMIT_SIZES = {
    "requests": 500,
    "tokens": 200_000,
    "input-tokens": 160_000,
    "output-tokens": 40_000,
}


@dataclass(frozen=True)
class RateLimit:
    """What a scripted 429 says about waiting: `retry_after` seconds, and for each limit named
    in `resets` the seconds until it resets; the limits in `exhausted` report none left."""

    retry_after: float | None = None
    resets: Mapping[str, float] = field(default_factory=dict)
    exhausted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Call:
    name: str
    arguments: str  # the JSON arguments string (cut short for a cut-off turn)
    args: dict[str, Any] = field(default_factory=dict)  # Anthropic's `input`
    as_object: bool = False  # Chat: send `args` itself as `arguments`


@dataclass(frozen=True)
class Cite:
    """A citation of a scripted reply: text blocks `start` to `end` (exclusive) of the
    request's search result number `result` (its `search_result_index`, from 0). The
    server says what they hold unless `cited_text` or `source` says otherwise."""

    result: int
    start: int = 0
    end: int = 1
    cited_text: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class CitedText:
    """A text block of a scripted Anthropic reply and what it cites."""

    text: str
    cites: tuple[Cite, ...] = ()


@dataclass(frozen=True)
class Turn:
    text: str | None = None
    calls: tuple[Call, ...] = ()
    stop: Stop = "complete"
    reasoning: str = ""
    blocks: tuple[dict[str, Any], ...] = ()  # Anthropic text blocks with their citations


@dataclass(frozen=True)
class Usage:
    input: int
    output: int
    reasoning: int = 0
    cached: int = 0
    written: int = 0  # input tokens written to the prompt cache


def tokens_of(size: int) -> int:
    return math.ceil(size / 4)


def cap_of(body: dict[str, Any]) -> int | None:
    """The request's output cap, under whichever name its protocol uses."""
    for name in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        if isinstance(body.get(name), int):
            return int(body[name])
    return None


def answers_in_text(protocol: Protocol, body: dict[str, Any]) -> bool:
    """Whether the output is the reply's text: no tools are offered, or a JSON response
    format is asked for (`NativeOutput`, or `PromptedOutput`'s JSON mode)."""
    fmt = response_format(protocol, body)
    wants_json = isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object")
    return wants_json or not tool_names(body)


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


def rate_headers(protocol: Protocol, rate: RateLimit) -> dict[str, str]:
    """The headers a 429 carries in this protocol for what `rate` says."""
    headers: dict[str, str] = {}
    anthropic = protocol == "anthropic"
    if rate.retry_after is not None:
        if not anthropic:
            headers["retry-after-ms"] = str(math.ceil(rate.retry_after * 1000))
        headers["retry-after"] = str(math.ceil(rate.retry_after))
    for limit, seconds in rate.resets.items():
        if limit not in RATE_LIMITS[protocol]:
            raise ScriptError(f"{protocol} reports no {limit!r} limit: {RATE_LIMITS[protocol]}")
        size = LIMIT_SIZES[limit]
        left = 0 if limit in rate.exhausted else size // 2
        values = {"limit": str(size), "remaining": str(left)}
        if anthropic:
            reset = datetime.fromtimestamp(math.ceil(time.time() + seconds), UTC)
            values["reset"] = reset.strftime("%Y-%m-%dT%H:%M:%SZ")
            headers.update({f"anthropic-ratelimit-{limit}-{k}": v for k, v in values.items()})
        else:
            values["reset"] = go_duration(seconds)
            headers.update({f"x-ratelimit-{k}-{limit}": v for k, v in values.items()})
    return headers


def chat_body(
    new_id: Callable[[str], str], request: dict[str, Any], turn: Turn, usage: Usage
) -> dict[str, Any]:
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


def responses_body(
    new_id: Callable[[str], str], request: dict[str, Any], turn: Turn, usage: Usage
) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": new_id("rs_"),
                "summary": [{"type": "summary_text", "text": turn.reasoning}],
            }
        )
    status, incomplete = "completed", None
    if turn.stop == "cut_off":
        status, incomplete = "incomplete", {"reason": "max_output_tokens"}
    elif turn.stop == "filtered":
        status, incomplete = "incomplete", {"reason": "content_filter"}
    for call in turn.calls:
        items.append(
            {
                "type": "function_call",
                "id": new_id("fc_"),
                "call_id": new_id("call_"),
                "name": call.name,
                "arguments": call.arguments,
                "status": "incomplete" if turn.stop == "cut_off" else "completed",
            }
        )
    if not turn.calls and turn.text is not None:
        content: dict[str, Any] = (
            {"type": "refusal", "refusal": turn.text}
            if turn.stop == "refused"
            else {"type": "output_text", "text": turn.text, "annotations": []}
        )
        items.append(
            {
                "type": "message",
                "id": new_id("msg_"),
                "role": "assistant",
                "status": "completed" if status == "completed" else "incomplete",
                "content": [content] if turn.text or turn.stop != "filtered" else [],
            }
        )
    return {
        "id": new_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "model": request.get("model", ""),
        "status": status,
        "error": None,
        "incomplete_details": incomplete,
        "output": items,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools", []),
        "usage": {
            "input_tokens": usage.input,
            "output_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
            "input_tokens_details": {
                "cached_tokens": usage.cached,
                "cache_write_tokens": usage.written,
            },
            "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        },
    }


def anthropic_body(
    new_id: Callable[[str], str], request: dict[str, Any], turn: Turn, usage: Usage
) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        signature = new_id("sig_")
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": signature})
    for call in turn.calls:
        blocks.append(
            {"type": "tool_use", "id": new_id("toolu_"), "name": call.name, "input": call.args}
        )
    if not turn.calls and turn.text:
        blocks.append({"type": "text", "text": turn.text})
    blocks.extend(turn.blocks)
    stop = {"complete": "tool_use" if turn.calls else "end_turn"}.get(turn.stop)
    stop = stop or {"cut_off": "max_tokens", "refused": "refusal"}[turn.stop]
    counts: dict[str, Any] = {
        # Anthropic counts cache reads and writes beside the input tokens, not within them.
        "input_tokens": usage.input - usage.cached - usage.written,
        "output_tokens": usage.output,
        "cache_creation_input_tokens": usage.written,
        "cache_read_input_tokens": usage.cached,
    }
    if usage.reasoning:
        counts["output_tokens_details"] = {"thinking_tokens": usage.reasoning}
    body: dict[str, Any] = {
        "id": new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": request.get("model", ""),
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": counts,
    }
    if turn.stop == "refused":
        body["stop_details"] = {"type": "refusal", "category": None, "explanation": None}
    return body
