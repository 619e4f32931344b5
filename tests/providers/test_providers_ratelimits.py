"""How long the desk waits before trying again, as each provider tells it on the wire.

The desk waits the most precise wait the provider states: OpenAI's `retry-after-ms` over its
whole-second `retry-after`; with no `retry-after`, the reset of the limit the provider
reports used up (OpenAI's `x-ratelimit-reset-*` durations, Anthropic's RFC 3339
`anthropic-ratelimit-*-reset` times), which also refines a whole-second `retry-after`; a
fractional `retry-after`. A wait longer than `model_max_wait` fails the stage at once; a
503 is retried after the backoff, doubling. The waits are measured between the requests the
fake server saw (the desks here back off 0.01 s unless told otherwise).
"""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model, Prompt, faithful_plan, role_of

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import Decision, Receipt

QUESTION = "When was the Erie Canal opened?"
OPENAI: tuple[Protocol, ...] = ("chat", "responses")


def ask(
    make_desk: DeskFactory, protocol: Protocol, plan: list[Reply] | Any, **kw: Any
) -> tuple[Receipt, list[float]]:
    """Ask with the planner answering `plan` first; the receipt and the planner's waits
    between its requests."""
    model = Model(protocol, {"plan": plan})
    with FakeProvider(protocol, model) as fake:
        receipt = Receipt.model_validate(
            make_desk(protocol, fake.base_url, **kw).ask(QUESTION).receipt
        )
    times = [c.at for c in fake.requests if role_of(protocol, c.body) == "plan"]
    return receipt, [later - earlier for earlier, later in itertools.pairwise(times)]


def assert_cleared_after(receipt: Receipt, waits: list[float], low: float, high: float) -> None:
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert receipt.published_answer
    [waited] = waits
    assert low <= waited < high, waited


def assert_refused(receipt: Receipt, waits: list[float], reason: str) -> None:
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert receipt.failure is not None and receipt.failure.stage == "plan"
    assert re.fullmatch(reason, receipt.failure.reason), receipt.failure.reason
    assert waits == []  # one request: not retried


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_503_is_retried_after_a_doubling_backoff(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    down = Reply.error(503, "Service Unavailable")
    receipt, waits = ask(make_desk, protocol, [down, down], model_backoff=0.2)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    plan = next(s for s in receipt.stages if s.name == "plan")
    assert plan.calls == 3
    first, second = waits
    assert 0.2 <= first < 0.4 <= second, waits


@pytest.mark.parametrize("protocol", OPENAI)
def test_openai_retry_after_ms_is_waited_rather_than_the_whole_second(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    receipt, waits = ask(make_desk, protocol, [Reply.rate_limited(0.3)])  # retry-after: 1
    assert_cleared_after(receipt, waits, 0.3, 1.0)


@pytest.mark.parametrize("protocol", OPENAI)
def test_without_retry_after_the_used_up_limits_reset_is_the_wait(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    limited = Reply.rate_limited(resets={"requests": 0.3, "tokens": 360}, exhausted=["requests"])
    receipt, waits = ask(make_desk, protocol, [limited])
    assert_cleared_after(receipt, waits, 0.3, 1.0)  # not the 6m0s of the tokens left


@pytest.mark.parametrize("protocol", OPENAI)
def test_a_used_up_limit_resetting_after_max_wait_fails_at_once(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    limited = Reply.rate_limited(resets={"requests": 0.02, "tokens": 360}, exhausted=["tokens"])
    receipt, waits = ask(make_desk, protocol, [limited])
    assert_refused(
        receipt,
        waits,
        re.escape(
            "The planner failed: the provider is rate limiting and asked to wait 360 s, longer "
            "than the 30 s the desk waits (HTTP 429)."
        ),
    )


def test_anthropic_reset_time_is_the_wait_without_retry_after(make_desk: DeskFactory) -> None:
    limited = Reply.rate_limited(resets={"requests": 0.5})  # a whole-second time, rounded up
    receipt, waits = ask(make_desk, "anthropic", [limited])
    assert_cleared_after(receipt, waits, 0.45, 2.5)


def test_anthropic_reset_time_after_max_wait_fails_at_once(make_desk: DeskFactory) -> None:
    receipt, waits = ask(make_desk, "anthropic", [Reply.rate_limited(resets={"tokens": 3600})])
    assert_refused(
        receipt,
        waits,
        r"The planner failed: the provider is rate limiting and asked to wait 3600(\.\d)? s, "
        r"longer than the 30 s the desk waits \(HTTP 429\)\.",
    )


def test_anthropic_reset_time_refines_a_whole_second_retry_after(make_desk: DeskFactory) -> None:
    limited: list[Reply] = []

    def limited_once(prompt: Prompt) -> Reply | dict[str, Any]:
        """A 429 whose reset time (written when it is sent) is 0.3 s away, then the plan."""
        if limited:
            return faithful_plan(prompt)
        reset = datetime.now(UTC) + timedelta(seconds=0.3)
        headers = {
            "retry-after": "1",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": reset.isoformat(timespec="milliseconds"),
        }
        limited.append(Reply.error(429, "Number of requests has exceeded your rate limit", headers))
        return limited[0]

    receipt, waits = ask(make_desk, "anthropic", limited_once)
    assert_cleared_after(receipt, waits, 0.25, 1.0)


def test_a_fractional_retry_after_is_waited(make_desk: DeskFactory) -> None:
    limited = Reply.error(429, "slow down", headers={"retry-after": "0.4"})
    receipt, waits = ask(make_desk, "chat", [limited])
    assert_cleared_after(receipt, waits, 0.4, 1.0)


def test_a_wait_longer_than_max_wait_fails_at_once(make_desk: DeskFactory) -> None:
    receipt, waits = ask(make_desk, "chat", [Reply.rate_limited(0.8)], model_max_wait=0.5)
    assert_refused(
        receipt,
        waits,
        re.escape(
            "The planner failed: the provider is rate limiting and asked to wait 0.8 s, longer "
            "than the 0.5 s the desk waits (HTTP 429)."
        ),
    )
