"""Replies the provider ends early, on each protocol's own wire: cut off at the output cap,
refused, filtered; reasoning before a valid answer; several tool calls in one turn; tool
arguments sent as a JSON object.

A reply ended early is never a format error and is never sent again (it would end the same
way): the run is held with the true reason, nothing is published, and the stage records one
call. Reasoning (or thinking) before the output tool call is accepted, its tokens counted
(cache reads and writes within the input). Of several output tool calls in one turn the
first valid one is the answer; a call to a tool that was not offered, beside it, is
ignored. Arguments as a JSON object (some OpenAI-compatible servers) are refused by
Pydantic AI unread: the run is held.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model, Prompt, faithful_answer

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"
REASONING_ENGINE = {
    "chat": "openai:gpt-5-mini",
    "responses": "openai-responses:gpt-5-mini",
    "anthropic": "anthropic:claude-sonnet-5",
}


# The output tool's own wire: an Anthropic answerer in `auto` mode cites instead.
TOOL = "tool"


def ask(make_desk: DeskFactory, protocol: Protocol, script: Model, **kw: Any) -> Receipt:
    with FakeProvider(protocol, script) as fake:
        desk = make_desk(protocol, fake.base_url, **kw)
        result = desk.ask(QUESTION)
        assert desk.verify_receipt(result.receipt).ok
        return Receipt.model_validate(result.receipt)


def answer_stage(receipt: Receipt) -> dict[str, Any]:
    return next(s.model_dump() for s in receipt.stages if s.name == "answer")


def assert_held(receipt: Receipt, reason: str) -> None:
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert receipt.failure is not None and receipt.failure.stage == "answer"
    assert receipt.failure.kind == "agent"
    assert receipt.failure.reason == reason
    assert answer_stage(receipt)["error"] == reason
    assert answer_stage(receipt)["calls"] == 1


def truncated(p: Prompt) -> Reply:
    return Reply.truncated(faithful_answer(p))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_answer_cut_off_at_the_cap_is_held_with_the_cap_and_not_retried(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"answer": truncated})
    receipt = ask(make_desk, protocol, model)
    assert_held(
        receipt,
        "The answerer stopped: the model used its whole output cap of 2048 tokens before "
        "finishing its answer (raise EVIDENCE_DESK_MODEL_MAX_OUTPUT_TOKENS).",
    )
    assert model.calls("answer") == 1
    assert answer_stage(receipt)["output_tokens"] == 2048  # the fake reports the whole cap


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_reasoning_model_that_thinks_away_its_cap_is_told_what_to_change(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"answer": [Reply.truncated(reasoning="Let me weigh S1...")]})
    receipt = ask(make_desk, protocol, model, model=REASONING_ENGINE[protocol])
    assert_held(
        receipt,
        "The answerer stopped: the model used its whole output cap of 8192 tokens before "
        "finishing its answer (reasoning models spend it thinking; raise "
        "EVIDENCE_DESK_MODEL_REASONING_MAX_OUTPUT_TOKENS or lower "
        "EVIDENCE_DESK_MODEL_REASONING_EFFORT).",
    )
    assert model.calls("answer") == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_refusal_is_held_with_what_the_model_said(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"answer": [Reply.refusal("I can't help with that request.")]})
    receipt = ask(make_desk, protocol, model)
    assert_held(
        receipt,
        "The answerer failed: the model refused to answer (I can't help with that request.).",
    )
    assert model.calls("answer") == 1


@pytest.mark.parametrize("protocol", ["chat", "responses"])
@pytest.mark.parametrize("partial", ["", "The Erie Canal"])
def test_a_content_filter_stop_is_held_as_such(
    make_desk: DeskFactory, protocol: Protocol, partial: str
) -> None:
    model = Model(protocol, {"answer": [Reply.content_filter(partial)]})
    receipt = ask(make_desk, protocol, model)
    assert_held(receipt, "The answerer failed: the provider's content filter stopped the reply.")
    assert model.calls("answer") == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_reasoning_before_a_valid_answer_is_accepted_and_its_tokens_counted(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def thoughtful(p: Prompt) -> Reply:
        return Reply.output(
            faithful_answer(p),
            usage=(1200, 700),
            reasoning="S1 says the canal opened on October 26, 1825.",
            reasoning_tokens=600,
            cached_tokens=512,
            cache_write_tokens=256,
        )

    model = Model(protocol, {"answer": thoughtful})
    receipt = ask(make_desk, protocol, model, model=REASONING_ENGINE[protocol])
    assert receipt.decision == Decision.AUTO_CLEARED
    assert receipt.published_answer
    stage = answer_stage(receipt)
    # Cache reads and writes are part of the input (Anthropic reports them beside it).
    assert (stage["calls"], stage["input_tokens"], stage["output_tokens"]) == (1, 1200, 700)


def request_of(model: Model, role: str) -> dict[str, Any]:
    return next(body for r, body in model.seen if r == role)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_reasoning_model_is_asked_for_low_effort_without_temperature(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol)
    engine = REASONING_ENGINE[protocol]
    receipt = ask(make_desk, protocol, model, model=engine, model_output_mode=TOOL)
    assert receipt.decision == Decision.AUTO_CLEARED
    body = request_of(model, "answer")
    assert "temperature" not in body
    if protocol == "chat":
        assert body["reasoning_effort"] == "low"
        assert body["max_completion_tokens"] == 8192
    elif protocol == "responses":
        assert body["reasoning"]["effort"] == "low"
        assert body["max_output_tokens"] == 8192
    else:
        assert body["thinking"] == {"type": "adaptive"}
        assert body["output_config"]["effort"] == "low"
        assert body["max_tokens"] == 8192


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_model_that_does_not_reason_gets_no_effort_and_temperature_zero(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol)
    ask(make_desk, protocol, model)
    body = request_of(model, "answer")
    assert body["temperature"] == 0
    assert not {"reasoning_effort", "reasoning", "thinking"} & set(body)


HOSTILE = {
    "claims": [
        {"text": "The canal was sold to Britain in 1999.", "citations": ["S1"], "quotes": []}
    ]
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_output_tool_called_twice_in_one_turn_is_answered_by_the_first_call(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def twice(p: Prompt) -> Reply:
        return Reply.several(Reply.output(faithful_answer(p)), Reply.output(HOSTILE))

    model = Model(protocol, {"answer": twice})
    receipt = ask(make_desk, protocol, model, model_output_mode=TOOL)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert "October 26, 1825" in receipt.published_answer
    assert "Britain" not in receipt.published_answer + receipt.draft
    assert model.calls("answer") == 1
    assert answer_stage(receipt)["calls"] == 1


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_call_to_a_tool_not_offered_beside_the_output_tool_is_ignored(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def searching(p: Prompt) -> Reply:
        search = Reply.tool_call("search_web", {"query": "Erie Canal"})
        return Reply.several(search, Reply.output(faithful_answer(p)))

    model = Model(protocol, {"answer": searching})
    receipt = ask(make_desk, protocol, model, model_output_mode=TOOL)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert model.calls("answer") == 1
    assert answer_stage(receipt)["calls"] == 1


@pytest.mark.parametrize("protocol", ["chat", "responses"])
def test_a_malformed_output_call_then_a_valid_one_in_one_turn_takes_the_valid_one(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def fumbling(p: Prompt) -> Reply:
        broken = Reply.raw_arguments('{"claims": [{"text": "The canal')
        return Reply.several(broken, Reply.output(faithful_answer(p)))

    model = Model(protocol, {"answer": fumbling})
    receipt = ask(make_desk, protocol, model)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert model.calls("answer") == 1


def object_arguments(p: Prompt) -> Reply:
    return Reply.output(faithful_answer(p), object_arguments=True)


def test_tool_arguments_sent_as_a_json_object_on_chat_are_held_unread(
    make_desk: DeskFactory,
) -> None:
    """Pydantic AI refuses a Chat completion whose `arguments` is not a string (the SDK's
    type), so the reply is never read: the run is held, and it is not sent again."""
    model = Model("chat", {"answer": object_arguments})
    receipt = ask(make_desk, "chat", model)
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert receipt.failure is not None and receipt.failure.stage == "answer"
    assert "Invalid response from openai chat completions endpoint" in receipt.failure.reason
    assert model.calls("answer") == 1
    assert answer_stage(receipt)["calls"] == 1


def test_an_unreadable_response_is_not_reported_as_two_format_failures(
    make_desk: DeskFactory,
) -> None:
    model = Model("chat", {"answer": object_arguments})
    receipt = ask(make_desk, "chat", model)
    assert receipt.failure is not None
    assert "after 2 tries" not in receipt.failure.reason
    assert "reply could not be read as its protocol's response" in receipt.failure.reason
    assert answer_stage(receipt)["input_tokens"] > 0  # the estimate: the provider charged
