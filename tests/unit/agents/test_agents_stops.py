"""Replies the provider ended early: cut off at the cap, refused, filtered. Each gets its own
reason and is never sent again as if it were a format error.

A `FunctionModel` returns the `ModelResponse` each Pydantic AI adapter builds for that stop
(`finish_reason` and `provider_details` as `models/openai/_chat_model.py`,
`_responses_model.py` and `models/anthropic/_response.py` set them); `ModelCaller` runs it
with the policy and budget a role would.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from scripted_caller import Run, caller

from evidence_desk.agents.base import AgentFailure, RunBudget
from evidence_desk.agents.calls import CallPolicy

VALID = {"claims": [{"text": "Banks reopened in 1933.", "citations": ["S1"], "quotes": []}]}
HALF = '{"claims": [{"text": "Banks reo'  # the answer's arguments, cut at the cap


def budget(tokens: int = 1_000_000) -> RunBudget:
    return RunBudget(max_calls=10, max_tokens=tokens)


def fail(run: Run, spent: RunBudget | None = None) -> AgentFailure:
    with pytest.raises(AgentFailure) as info:
        run.caller.call("What happened?", spent or budget())
    failure = info.value
    assert failure.reason.endswith(".") and "\n" not in failure.reason
    return failure


def response(finish: str, *parts: Any, details: dict[str, Any] | None = None) -> ModelResponse:
    return ModelResponse(
        parts=list(parts),
        finish_reason=finish,  # type: ignore[arg-type]
        provider_details=details,
    )


def cut_tool_call() -> ModelResponse:
    return response(
        "length", ToolCallPart("submit_answer", HALF), details={"finish_reason": "length"}
    )


def test_a_reply_cut_off_mid_tool_call_fails_at_once_with_the_cap() -> None:
    run = caller(cut_tool_call(), VALID)
    failure = fail(run)
    assert failure.reason == (
        "The answerer stopped: the model used its whole output cap of 2048 tokens before "
        "finishing its answer (raise EVIDENCE_DESK_MODEL_MAX_OUTPUT_TOKENS)."
    )
    assert failure.kind == "agent"
    assert run.script.requests == 1  # not sent back as a format error: it would cut off again
    assert failure.usage.calls == 1
    assert run.sleeps == []


def test_a_cut_off_tool_call_whose_partial_arguments_parse_is_not_retried_either() -> None:
    # Anthropic's `tool_use.input` is an object: what was cut off can still parse.
    partial = response(
        "length", ToolCallPart("submit_answer", {}), details={"finish_reason": "max_tokens"}
    )
    run = caller(partial, VALID)
    assert "whole output cap" in fail(run).reason
    assert run.script.requests == 1


def test_a_reasoning_model_that_spent_its_cap_thinking_is_told_which_settings_to_change() -> None:
    thinking = response("length", ThinkingPart("Let me think about 1933..."))
    policy = CallPolicy(max_output_tokens=8192, reasons=True)
    run = caller(thinking, VALID, policy=policy)
    assert fail(run).reason == (
        "The answerer stopped: the model used its whole output cap of 8192 tokens before "
        "finishing its answer (reasoning models spend it thinking; raise "
        "EVIDENCE_DESK_MODEL_REASONING_MAX_OUTPUT_TOKENS or lower "
        "EVIDENCE_DESK_MODEL_REASONING_EFFORT)."
    )
    assert run.script.requests == 1


def test_a_cap_clamped_by_the_run_budget_names_the_budget() -> None:
    run = caller(cut_tool_call())
    failure = fail(run, budget(tokens=1000))
    assert "whole output cap of " in failure.reason
    assert "the run's token budget left no more; raise EVIDENCE_DESK_MAX_MODEL_TOKENS" in (
        failure.reason
    )
    assert run.script.max_tokens[0] is not None and run.script.max_tokens[0] < 2048


def test_a_full_context_window_is_not_called_an_output_cap() -> None:
    full = response(
        "length", TextPart("The"), details={"finish_reason": "model_context_window_exceeded"}
    )
    run = caller(full)
    reason = fail(run).reason
    assert "filled the model's context window" in reason and "output cap" not in reason


def test_a_text_reply_cut_off_is_not_retried() -> None:
    run = caller(response("length", TextPart("The banks")), VALID)
    assert "whole output cap" in fail(run).reason
    assert run.script.requests == 1


def test_an_openai_refusal_gives_its_stated_reason_on_one_line_redacted() -> None:
    refused = response(
        "content_filter",
        details={"refusal": "I can't help\nwith that. key sk-abcdefghijkl"},
    )
    run = caller(refused, VALID)
    failure = fail(run)
    assert failure.reason == (
        "The answerer failed: the model refused to answer (I can't help with that. key [redacted])."
    )
    assert failure.kind == "agent"
    assert run.script.requests == 1


def test_an_anthropic_refusal_after_some_text_is_not_retried() -> None:
    # Pydantic AI alone would retry this one: it has text, so it is not an empty response.
    refused = response(
        "content_filter", TextPart("I won't do that."), details={"finish_reason": "refusal"}
    )
    run = caller(refused, VALID)
    assert fail(run).reason == (
        "The answerer failed: the model refused to answer (I won't do that.)."
    )
    assert run.script.requests == 1


def test_a_refusal_without_a_stated_reason() -> None:
    run = caller(response("content_filter", details={"finish_reason": "refusal"}))
    assert fail(run).reason == "The answerer failed: the model refused to answer."


@pytest.mark.parametrize("partial", [(), (TextPart("Partial"),)])
def test_a_content_filter_stop_is_said_as_such(partial: tuple[TextPart, ...]) -> None:
    filtered = response("content_filter", *partial, details={"finish_reason": "content_filter"})
    run = caller(filtered, VALID)
    assert fail(run).reason == (
        "The answerer failed: the provider's content filter stopped the reply."
    )
    assert run.script.requests == 1


def test_a_reply_that_finished_after_thinking_is_accepted() -> None:
    done = ModelResponse(
        parts=[ThinkingPart("Banks reopened in 1933."), ToolCallPart("submit_answer", VALID)],
        finish_reason="tool_call",
    )
    run = caller(done)
    out, usage = run.caller.call("What happened?", budget())
    assert out.claims[0].text == "Banks reopened in 1933."
    assert usage.calls == 1


def test_output_that_breaks_the_schema_is_still_a_format_error() -> None:
    bad = {"claims": [{"text": "Banks reopened.", "citations": ["S1"], "quotes": ["closed"]}]}
    run = caller(bad)
    assert "did not match the required format after 2 tries" in fail(run).reason
    assert run.script.requests == 2
