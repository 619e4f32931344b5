"""The desk's real requests, sent to fake servers that reject what the real APIs reject.

Every role of a whole ask, on each protocol, for a model that does not reason and one that
does (at the desk's default effort, turned off, and left to the model's default), goes to a
`FakeProvider(validate=True)`: every request must be accepted (no 400 served), and the run
published. A rejection here is a desk request the real provider would refuse.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import DeskFactory
from scripts import Model

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol
from evidence_desk.types import Decision

QUESTION = "When was the Erie Canal opened?"
ASKS: list[tuple[Protocol, str, dict[str, Any]]] = [
    ("chat", "openai:gpt-4.1-mini", {}),
    ("chat", "openai:gpt-5-mini", {}),
    ("chat", "openai:gpt-5-mini", {"model_reasoning_effort": "off"}),
    ("chat", "openai:gpt-5-mini", {"model_reasoning_effort": "default"}),
    ("responses", "openai-responses:gpt-4.1-mini", {}),
    ("responses", "openai-responses:gpt-5-mini", {}),
    ("responses", "openai-responses:gpt-5-mini", {"model_reasoning_effort": "off"}),
    ("anthropic", "anthropic:claude-haiku-4-5", {}),
    # Claude Sonnet 5 thinks by default (`thinking_enabled_by_default` in its profile).
    ("anthropic", "anthropic:claude-sonnet-5", {}),
    ("anthropic", "anthropic:claude-sonnet-5", {"model_reasoning_effort": "off"}),
    ("anthropic", "anthropic:claude-sonnet-5", {"model_reasoning_effort": "default"}),
]


@pytest.mark.parametrize(
    ("protocol", "engine", "settings"),
    ASKS,
    ids=[
        f"{engine}-{settings.get('model_reasoning_effort', 'low')}" for _, engine, settings in ASKS
    ],
)
def test_every_request_of_a_real_ask_is_accepted(
    make_desk: DeskFactory, protocol: Protocol, engine: str, settings: dict[str, Any]
) -> None:
    model = Model(protocol)
    with FakeProvider(protocol, model, validate=True) as fake:
        desk = make_desk(protocol, fake.base_url, model=engine, **settings)
        receipt = desk.ask(QUESTION).receipt
    assert [(r.rule, r.message) for r in fake.rejected] == []
    assert [role for role, _ in model.seen] == ["plan", "answer", "audit"]
    assert receipt["decision"] == Decision.AUTO_CLEARED, receipt["reason"]
