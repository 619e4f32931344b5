"""The fake servers' errors in each provider's own wire shape: what the SDKs parse from them,
and the error category Pydantic AI raises for each, which is what the desk decides on."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import anthropic
import openai
import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelContextWindowExceededError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelQuotaExceededError,
    ModelRateLimitError,
)
from pydantic_ai.models import override_allow_model_requests
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply

MODEL = {"chat": "gpt-4.1-mini", "responses": "gpt-4.1-mini", "anthropic": "claude-haiku-4-5"}


class Claims(BaseModel):
    claims: list[str]


def sdk_error(protocol: Protocol, reply: Reply) -> openai.APIStatusError | anthropic.APIStatusError:
    """The SDK's error for one request answered with `reply`."""
    with FakeProvider(protocol, [reply]) as fake:
        if protocol == "anthropic":
            client = anthropic.Anthropic(base_url=fake.base_url, api_key="t", max_retries=0)
            with pytest.raises(anthropic.APIStatusError) as caught:
                client.messages.create(
                    model=MODEL[protocol],
                    max_tokens=64,
                    messages=[{"role": "user", "content": "q"}],
                )
            return caught.value
        sdk = openai.OpenAI(base_url=fake.base_url, api_key="t", max_retries=0)
        with pytest.raises(openai.APIStatusError) as raised:
            if protocol == "chat":
                sdk.chat.completions.create(
                    model=MODEL[protocol], messages=[{"role": "user", "content": "q"}]
                )
            else:
                sdk.responses.create(model=MODEL[protocol], input="q")
        return raised.value


def pydantic_ai_error(protocol: Protocol, reply: Reply) -> ModelAPIError:
    """What Pydantic AI raises for one request answered with `reply`."""
    with FakeProvider(protocol, [reply]) as fake:
        if protocol == "anthropic":
            model: Any = AnthropicModel(
                MODEL[protocol], provider=AnthropicProvider(base_url=fake.base_url, api_key="t")
            )
        else:
            cls = OpenAIChatModel if protocol == "chat" else OpenAIResponsesModel
            model = cls(
                MODEL[protocol], provider=OpenAIProvider(base_url=fake.base_url, api_key="t")
            )
        settings: Any = {"max_tokens": 1024, "max_retries": 0}
        agent = Agent(model, output_type=Claims, model_settings=settings)
        with override_allow_model_requests(True), pytest.raises(ModelAPIError) as caught:
            agent.run_sync("q")
    assert len(fake.requests) == 1
    return caught.value


def error_fields(error: openai.APIStatusError | anthropic.APIStatusError) -> dict[str, Any]:
    """The error object of the body: OpenAI's SDK keeps it as `body`, Anthropic's nests it."""
    body: Any = error.body
    return dict(body.get("error", body))


OPENAI: tuple[Protocol, ...] = ("chat", "responses")


@pytest.mark.parametrize("protocol", OPENAI)
def test_openai_quota_is_a_429_with_insufficient_quota_not_a_rate_limit(protocol: Protocol) -> None:
    error = sdk_error(protocol, Reply.quota_exceeded())
    assert isinstance(error, openai.RateLimitError) and error.status_code == 429
    fields = error_fields(error)
    assert (fields["type"], fields["code"]) == ("insufficient_quota", "insufficient_quota")
    assert fields["message"].startswith("You exceeded your current quota")
    raised = pydantic_ai_error(protocol, Reply.quota_exceeded())
    assert isinstance(raised, ModelQuotaExceededError)
    assert not isinstance(raised, ModelRateLimitError)


def test_anthropic_quota_is_a_400_saying_the_credit_balance_is_too_low() -> None:
    error = sdk_error("anthropic", Reply.quota_exceeded())
    assert isinstance(error, anthropic.BadRequestError)
    fields = error_fields(error)
    assert fields["type"] == "invalid_request_error"
    assert "credit balance is too low" in fields["message"]
    assert isinstance(
        pydantic_ai_error("anthropic", Reply.quota_exceeded()), ModelQuotaExceededError
    )
    billing = pydantic_ai_error("anthropic", Reply.error(402, "Your account has a billing issue."))
    assert isinstance(billing, ModelQuotaExceededError)
    assert isinstance(billing, ModelHTTPError) and billing.status_code == 402


@pytest.mark.parametrize(
    ("protocol", "param", "words"),
    [
        (
            "chat",
            "messages",
            "maximum context length is 200000 tokens. However, your messages "
            "resulted in 210000 tokens",
        ),
        ("responses", "input", "Your input exceeds the context window of this model"),
    ],
)
def test_openai_context_overflow_is_context_length_exceeded(
    protocol: Protocol, param: str, words: str
) -> None:
    error = sdk_error(protocol, Reply.context_exceeded(210_000, 200_000))
    assert isinstance(error, openai.BadRequestError)
    fields = error_fields(error)
    assert (fields["code"], fields["param"]) == ("context_length_exceeded", param)
    assert words in fields["message"]
    raised = pydantic_ai_error(protocol, Reply.context_exceeded())
    assert isinstance(raised, ModelContextWindowExceededError)


def test_anthropic_context_overflow_says_the_prompt_is_too_long() -> None:
    error = sdk_error("anthropic", Reply.context_exceeded(210_000, 200_000))
    assert isinstance(error, anthropic.BadRequestError)
    assert error_fields(error) == {
        "type": "invalid_request_error",
        "message": "prompt is too long: 210000 tokens > 200000 maximum",
    }
    raised = pydantic_ai_error("anthropic", Reply.context_exceeded())
    assert isinstance(raised, ModelContextWindowExceededError)


@pytest.mark.parametrize("protocol", ["chat", "responses", "anthropic"])
def test_an_unknown_model_is_a_404_naming_the_requested_model(protocol: Protocol) -> None:
    error = sdk_error(protocol, Reply.unknown_model())
    assert isinstance(error, openai.NotFoundError | anthropic.NotFoundError)
    fields = error_fields(error)
    if protocol == "anthropic":
        assert fields == {"type": "not_found_error", "message": "model: claude-haiku-4-5"}
    else:
        assert fields["code"] == "model_not_found"
        assert "The model `gpt-4.1-mini` does not exist" in fields["message"]
    raised = pydantic_ai_error(protocol, Reply.unknown_model())
    assert isinstance(raised, ModelNotFoundError)


@pytest.mark.parametrize(
    ("seconds", "duration"),
    [
        (0.02, "20ms"),
        (0.3, "300ms"),
        (1.0, "1s"),
        (1.5, "1.5s"),
        (360, "6m0s"),
        (3723.5, "1h2m3.5s"),
    ],
)
def test_openai_rate_limit_resets_are_go_durations(seconds: float, duration: str) -> None:
    error = sdk_error("chat", Reply.rate_limited(resets={"tokens": seconds}))
    assert error.response.headers["x-ratelimit-reset-tokens"] == duration


def test_openai_rate_limit_headers() -> None:
    reply = Reply.rate_limited(
        1.25, resets={"requests": 0.02, "tokens": 360}, exhausted=["requests"]
    )
    error = sdk_error("chat", reply)
    assert isinstance(error, openai.RateLimitError)
    headers = error.response.headers
    assert (headers["retry-after-ms"], headers["retry-after"]) == ("1250", "2")
    assert (headers["x-ratelimit-limit-requests"], headers["x-ratelimit-remaining-requests"]) == (
        "500",
        "0",
    )
    assert headers["x-ratelimit-reset-requests"] == "20ms"
    assert headers["x-ratelimit-remaining-tokens"] == "100000"  # not used up: half left
    assert headers["x-ratelimit-reset-tokens"] == "6m0s"
    assert (error_fields(error)["type"], error_fields(error)["code"]) == (
        "requests",
        "rate_limit_exceeded",
    )
    raised = pydantic_ai_error("chat", reply)
    assert isinstance(raised, ModelRateLimitError)
    assert raised.retry_after == 1.25  # Pydantic AI reads retry-after-ms before retry-after


def test_anthropic_rate_limit_headers_are_rfc_3339_reset_times() -> None:
    sent = datetime.now(UTC).timestamp()
    error = sdk_error("anthropic", Reply.rate_limited(1.25, resets={"input-tokens": 30}))
    assert isinstance(error, anthropic.RateLimitError)
    assert error_fields(error)["type"] == "rate_limit_error"  # never the limit's name
    headers = error.response.headers
    assert headers["retry-after"] == "2"  # whole seconds, rounded up
    assert "retry-after-ms" not in headers
    assert headers["anthropic-ratelimit-input-tokens-remaining"] == "0"
    reset = headers["anthropic-ratelimit-input-tokens-reset"]
    assert reset.endswith("Z") and len(reset) == len("2025-01-01T00:00:00Z")
    at = datetime.fromisoformat(reset).timestamp()
    assert sent + 30 <= at <= math.ceil(datetime.now(UTC).timestamp() + 30)


def test_a_limit_the_protocol_does_not_report_is_a_script_error() -> None:
    error = sdk_error("chat", Reply.rate_limited(resets={"input-tokens": 1}))
    assert error.status_code == 500
    assert "reports no 'input-tokens' limit" in json.dumps(error.body)
