"""Replies the provider ends early, on each protocol's own wire: cut off at the output cap,
refused, filtered; and reasoning before a valid answer.

A reply ended early is never a format error and is never sent again (it would end the same
way): the run is held with the true reason, nothing is published, and the stage records one
call. Reasoning (or thinking) before the output tool call is accepted, its tokens counted.
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
            cached_tokens=1024,
        )

    model = Model(protocol, {"answer": thoughtful})
    receipt = ask(make_desk, protocol, model, model=REASONING_ENGINE[protocol])
    assert receipt.decision == Decision.AUTO_CLEARED
    assert receipt.published_answer
    stage = answer_stage(receipt)
    assert (stage["calls"], stage["input_tokens"], stage["output_tokens"]) == (1, 1200, 700)


def request_of(model: Model, role: str) -> dict[str, Any]:
    return next(body for r, body in model.seen if r == role)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_reasoning_model_is_asked_for_low_effort_without_temperature(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol)
    receipt = ask(make_desk, protocol, model, model=REASONING_ENGINE[protocol])
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
