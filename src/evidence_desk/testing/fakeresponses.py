"""The OpenAI Responses wire: `/v1/responses`, its output items and its usage.

Errors, the model list and rate-limit headers are OpenAI's, as on Chat (`fakechat.py`); a
context overflow says so in the Responses API's words and names `input`.
"""

from __future__ import annotations

import time
from typing import Any

from .fakebodies import NewId, Problem, RateLimit, Said, Turn, Usage, Wire
from .fakechat import openai_error, openai_models, openai_problem, openai_rate_headers


def responses_body(
    new_id: NewId, request: dict[str, Any], turn: Turn, usage: Usage
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


def _responses_problem(
    problem: Problem, model: str, context: tuple[int, int], rate: RateLimit
) -> Said:
    return openai_problem(problem, model, context, rate, chat=False)


WIRE = Wire(
    endpoint="/v1/responses",
    base_path="/v1",
    id_header="x-request-id",
    body=responses_body,
    error=openai_error,
    models=openai_models,
    rate_headers=openai_rate_headers,
    problem=_responses_problem,
)
