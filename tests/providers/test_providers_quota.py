"""Errors that waiting cannot fix, on each provider's own wire: a used-up quota, a prompt
longer than the model's context window, a model the provider does not know.

Each fails its stage at once with the true reason (a quota is not a rate limit, though
OpenAI sends it as a 429): the provider sees exactly one request for that role, the run is
held, and nothing is published.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"
MODEL_NAME = {"chat": "gpt-4.1-mini", "responses": "gpt-4.1-mini", "anthropic": "claude-haiku-4-5"}


def held(make_desk: DeskFactory, protocol: Protocol, role: str, reply: Reply) -> tuple[str, Model]:
    """Ask with `role` (a stage's name) answering `reply` every time; the held run's failure
    reason, and the model that saw its requests."""
    model = Model(protocol, {role: [reply] * 3})
    with FakeProvider(protocol, model) as fake:
        desk = make_desk(protocol, fake.base_url)
        result = desk.ask(QUESTION)
        assert desk.verify_receipt(result.receipt).ok
    receipt = Receipt.model_validate(result.receipt)
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert not any(claim.kept for claim in receipt.claims)
    assert receipt.failure is not None and receipt.failure.stage == role
    stage: dict[str, Any] = next(s.model_dump() for s in receipt.stages if s.name == role)
    assert stage["error"] == receipt.failure.reason
    assert stage["calls"] == 1
    assert model.calls(role) == 1  # not retried
    assert len(fake.requests) == len(model.seen)  # nothing else was sent
    return receipt.failure.reason, model


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_used_up_quota_is_not_retried_as_a_rate_limit(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    reason, _ = held(make_desk, protocol, "answer", Reply.quota_exceeded())
    status = 400 if protocol == "anthropic" else 429  # Anthropic: "credit balance is too low"
    assert reason == (
        f"The answerer failed: the account's quota with the provider is used up (HTTP {status})."
    )


def test_an_anthropic_billing_error_is_a_used_up_quota(make_desk: DeskFactory) -> None:
    billing = Reply.error(402, "Your organization has a billing issue.")
    reason, _ = held(make_desk, "anthropic", "plan", billing)
    assert (
        reason == "The planner failed: the account's quota with the provider is used up (HTTP 402)."
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_prompt_longer_than_the_context_window_is_not_retried(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    reason, model = held(make_desk, protocol, "audit", Reply.context_exceeded(210_000, 200_000))
    assert reason == "The auditor failed: the request is longer than the model accepts (HTTP 400)."
    assert [role for role, _ in model.seen] == ["plan", "answer", "audit"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_unknown_model_fails_the_first_stage_at_once(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    reason, model = held(make_desk, protocol, "plan", Reply.unknown_model())
    assert reason == (
        f"The planner failed: the provider does not know the model '{MODEL_NAME[protocol]}' "
        "(HTTP 404)."
    )
    assert [role for role, _ in model.seen] == ["plan"]
