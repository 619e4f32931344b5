"""Reasoning models: thinking effort, output cap and temperature, read from the library's
profile of each model (`Model.profile`), never from a list of names kept here."""

from __future__ import annotations

import pytest
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from evidence_desk.agents.calls import CallPolicy
from evidence_desk.agents.prices import PriceTable
from evidence_desk.agents.roles import AgentAnswerer, reasoning_settings


def openai(name: str) -> Model:
    return OpenAIChatModel(name, provider=OpenAIProvider(api_key="sk-test"))


def anthropic(name: str) -> Model:
    return AnthropicModel(name, provider=AnthropicProvider(api_key="sk-ant-test"))


@pytest.mark.parametrize(
    ("model", "thinking", "temperature", "reasons"),
    [
        (openai("gpt-4.1-mini"), None, 0.0, False),  # does not reason
        (openai("gpt-5.1"), None, 0.0, False),  # reasons only when asked: left off
        (openai("gpt-5-mini"), "low", None, True),  # always reasons
        (openai("o3-mini"), "low", None, True),
        (anthropic("claude-haiku-4-5"), None, 0.0, False),
        (anthropic("claude-opus-4-7"), None, None, False),  # rejects sampling settings
        (anthropic("claude-sonnet-5"), "low", None, True),  # thinks by default
    ],
)
def test_effort_goes_only_to_models_that_reason_and_temperature_only_where_accepted(
    model: Model, thinking: str | None, temperature: float | None, reasons: bool
) -> None:
    settings, reasoning = reasoning_settings(model, "low")
    assert settings.get("thinking") == thinking
    assert settings.get("temperature") == temperature
    assert reasoning is reasons


def test_off_turns_thinking_off_where_the_model_can_and_then_temperature_is_sent() -> None:
    settings, reasons = reasoning_settings(openai("gpt-5.5"), "off")
    assert settings == {"thinking": False, "temperature": 0.0} and not reasons
    settings, reasons = reasoning_settings(openai("gpt-5-mini"), "off")  # cannot: least effort
    assert settings == {"thinking": False} and reasons


def test_default_sends_no_effort() -> None:
    settings, reasons = reasoning_settings(openai("gpt-5-mini"), "default")
    assert "thinking" not in settings and reasons


def test_a_reasoning_model_gets_the_reasoning_output_cap() -> None:
    policy = CallPolicy(max_output_tokens=2048, reasoning_max_output_tokens=8192)
    prices = PriceTable.load()
    fast = AgentAnswerer("openai:gpt-4.1-mini", openai("gpt-4.1-mini"), policy, prices)
    slow = AgentAnswerer("openai:gpt-5-mini", openai("gpt-5-mini"), policy, prices)
    assert fast.policy.max_output_tokens == 2048 and not fast.policy.reasons
    assert slow.policy.max_output_tokens == 8192 and slow.policy.reasons


def test_the_responses_model_is_judged_by_its_own_profile() -> None:
    model = OpenAIResponsesModel("gpt-5-mini", provider=OpenAIProvider(api_key="sk-test"))
    settings, reasons = reasoning_settings(model, "medium")
    assert settings == {"thinking": "medium"} and reasons
