"""The Anthropic Messages wire: `/v1/messages`, its content blocks, errors and headers.

A turn is written as content blocks (`thinking`, `tool_use`, `text`, and text blocks with
`search_result_location` citations, `cited_block`), usage counts cache reads and writes
beside the input tokens, errors are `{"type": "error", "error": {"type", "message"}}`, and
a 429 carries `retry-after` in whole seconds and `anthropic-ratelimit-{requests,tokens,
input-tokens,output-tokens}-{limit,remaining,reset}` with RFC 3339 reset times.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from .fakebodies import (
    CitedText,
    NewId,
    Problem,
    RateLimit,
    Said,
    ScriptError,
    Turn,
    Usage,
    Wire,
    limit_values,
)

ANTHROPIC_LIMITS = ("requests", "tokens", "input-tokens", "output-tokens")

_ERRORS: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_CREDIT = (
    "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing "
    "to upgrade or purchase credits."
)


def anthropic_body(
    new_id: NewId, request: dict[str, Any], turn: Turn, usage: Usage
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


def cited_block(block: CitedText, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One text block of the reply with its `search_result_location` citations."""
    out: dict[str, Any] = {"type": "text", "text": block.text}
    if not block.cites:
        return out
    citations = []
    for cite in block.cites:
        result = results[cite.result] if 0 <= cite.result < len(results) else None
        if result is None and (cite.cited_text is None or cite.source is None):
            raise ScriptError(f"the request holds no search result {cite.result}")
        held = [b.get("text", "") for b in (result or {}).get("content", [])]
        if not 0 <= cite.start < cite.end <= max(len(held), cite.end if result is None else 0):
            raise ScriptError(f"blocks {cite.start}..{cite.end} are not in the search result")
        citations.append(
            {
                "type": "search_result_location",
                "cited_text": "".join(held[cite.start : cite.end])
                if cite.cited_text is None
                else cite.cited_text,
                "search_result_index": cite.result,
                "source": (result or {}).get("source", "") if cite.source is None else cite.source,
                "title": (result or {}).get("title"),
                "start_block_index": cite.start,
                "end_block_index": cite.end,
            }
        )
    out["citations"] = citations
    return out


def anthropic_error(new_id: NewId, said: Said) -> dict[str, Any]:
    usual = _ERRORS.get(said.status, "api_error" if said.status >= 500 else "invalid_request_error")
    return {
        "type": "error",
        "error": {"type": said.kind or usual, "message": said.message},
        "request_id": new_id("req_"),
    }


def anthropic_models(names: Sequence[str]) -> dict[str, Any]:
    data = [
        {
            "type": "model",
            "id": name,
            "display_name": name,
            "created_at": "2025-01-01T00:00:00Z",
            "lifecycle": "active",
        }
        for name in names
    ]
    return {
        "data": data,
        "has_more": False,
        "first_id": names[0] if names else None,
        "last_id": names[-1] if names else None,
    }


def _rfc3339_after(seconds: float) -> str:
    reset = datetime.fromtimestamp(math.ceil(time.time() + seconds), UTC)
    return reset.strftime("%Y-%m-%dT%H:%M:%SZ")


def anthropic_rate_headers(rate: RateLimit) -> dict[str, str]:
    """The headers an Anthropic 429 carries for what `rate` says."""
    headers: dict[str, str] = {}
    if rate.retry_after is not None:
        headers["retry-after"] = str(math.ceil(rate.retry_after))
    for limit, values in limit_values(rate, ANTHROPIC_LIMITS, "Anthropic", _rfc3339_after):
        headers.update({f"anthropic-ratelimit-{limit}-{k}": v for k, v in values.items()})
    return headers


def anthropic_problem(
    problem: Problem, model: str, context: tuple[int, int], rate: RateLimit
) -> Said:
    """What Anthropic answers for each `Problem`."""
    if problem == "quota":
        return Said(400, _CREDIT)
    if problem == "unknown_model":
        return Said(404, f"model: {model}")
    if problem == "context":
        tokens, window = context
        return Said(400, f"prompt is too long: {tokens} tokens > {window} maximum")
    limit = next(iter(rate.exhausted), "requests")
    said = f"Rate limit reached for {model} on {limit}. Please try again later."
    return Said(429, said, headers=anthropic_rate_headers(rate))


WIRE = Wire(
    endpoint="/v1/messages",
    base_path="",
    id_header="request-id",
    body=anthropic_body,
    error=anthropic_error,
    models=anthropic_models,
    rate_headers=anthropic_rate_headers,
    problem=anthropic_problem,
)
