"""Calling a model: bounded retries with backoff, clear failures and a metered budget.

Each test runs a real Pydantic AI agent on a `FunctionModel` that plays a script: raise a
provider error, return a valid output tool call, or return output that never validates.
Sleeps are recorded instead of slept, so the backoff can be checked without waiting.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelContextWindowExceededError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelOverloadedError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelRequestTimeout,
    ModelServerError,
    ModelTimeoutError,
)
from pydantic_ai.messages import ModelResponse, TextPart
from scripted_caller import ENGINE, PRICES, Run, caller, http

from evidence_desk.agents.base import AgentFailure, ModelUsage, RunBudget
from evidence_desk.agents.calls import CallPolicy, classify, estimate_tokens
from evidence_desk.agents.outputs import AnswerOut

VALID = {"claims": [{"text": "Banks reopened in 1933.", "citations": ["S1"]}]}
# Lists a quote the text does not contain: fails AnswerOut's validation every time.
INVALID = {"claims": [{"text": "Banks reopened.", "citations": ["S1"], "quotes": ["closed"]}]}


def budget(calls: int = 10, tokens: int = 1_000_000) -> RunBudget:
    return RunBudget(max_calls=calls, max_tokens=tokens)


def fail(run: Run, spent: RunBudget | None = None) -> AgentFailure:
    with pytest.raises(AgentFailure) as info:
        run.caller.call("What happened?", spent or budget())
    failure = info.value
    assert failure.role == "answerer"
    assert failure.reason == str(failure)
    prefix = "The answerer stopped: " if failure.kind == "budget" else "The answerer failed: "
    assert failure.reason.startswith(prefix)
    assert failure.reason.endswith(".") and not failure.reason.endswith("..")
    assert "\n" not in failure.reason
    return failure


# --------------------------------------------------------------------------- success


def test_success_on_the_first_try_reports_usage_and_spend() -> None:
    run = caller(VALID)
    spent = budget()
    out, usage = run.caller.call("What happened?", spent)
    assert out == AnswerOut.model_validate(VALID)
    assert run.script.requests == 1
    assert run.sleeps == []
    assert usage.engine == ENGINE
    assert usage.calls == 1
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.spend_usd == pytest.approx(
        (usage.input_tokens * 0.4 + usage.output_tokens * 1.6) / 1e6
    )
    assert (spent.calls, spent.tokens) == (1, usage.input_tokens + usage.output_tokens)


def test_an_unpriced_engine_reports_unknown_spend() -> None:
    _, usage = caller(VALID, engine="mistral:large").caller.call("q", budget())
    assert usage.calls == 1
    assert usage.spend_usd is None


def test_nothing_is_the_usage_of_a_call_not_made() -> None:
    run = caller(VALID)
    assert run.caller.nothing() == ModelUsage(
        engine=ENGINE, spend_usd=0.0, price_source="packaged table 2025-10-01"
    )
    assert caller(VALID, engine="x:y").caller.nothing().spend_usd is None
    assert run.script.requests == 0


# --------------------------------------------------------------------------- retries


def test_a_server_error_then_success_sleeps_once_for_the_backoff() -> None:
    run = caller(http(500), VALID, policy=CallPolicy(backoff=0.25))
    spent = budget()
    out, usage = run.caller.call("q", spent)
    assert out == AnswerOut.model_validate(VALID)
    assert run.sleeps == [0.25]
    assert run.script.requests == 2
    assert usage.calls == 2  # the failed try counts too
    assert spent.calls == 2


def test_repeated_server_errors_fail_after_every_attempt_with_doubling_waits() -> None:
    run = caller(http(500, ModelServerError, body="boom"))
    spent = budget()
    failure = fail(run, spent)
    assert "server error" in failure.reason
    assert "HTTP 500" in failure.reason
    assert "3 tries" in failure.reason
    assert run.script.requests == 3
    assert run.sleeps == [1.0, 2.0]
    assert failure.usage.calls == 3
    assert spent.calls == 3


def test_backoff_is_capped_at_max_wait() -> None:
    run = caller(http(502), policy=CallPolicy(attempts=5, backoff=4.0, max_wait=10.0))
    failure = fail(run)
    assert run.sleeps == [4.0, 8.0, 10.0, 10.0]
    assert "5 tries" in failure.reason


def test_a_single_attempt_policy_says_one_try() -> None:
    run = caller(http(503, ModelOverloadedError), policy=CallPolicy(attempts=1))
    failure = fail(run)
    assert failure.reason.endswith(", 1 try.")
    assert run.sleeps == []


def test_a_rate_limit_waits_what_the_provider_asks() -> None:
    limited = http(429, ModelRateLimitError, headers={"retry-after-ms": "500"})
    run = caller(limited, VALID)
    out, usage = run.caller.call("q", budget())
    assert out.claims
    assert run.sleeps == [0.5]
    assert usage.calls == 2


def test_a_plain_429_with_a_retry_after_header_is_a_rate_limit() -> None:
    run = caller(http(429, headers={"Retry-After": "2"}), VALID)
    run.caller.call("q", budget())
    assert run.sleeps == [2.0]


def test_a_rate_limit_without_retry_after_uses_the_backoff() -> None:
    run = caller(http(429, ModelRateLimitError), policy=CallPolicy(backoff=0.5))
    failure = fail(run)
    assert run.sleeps == [0.5, 1.0]
    assert "rate limiting" in failure.reason and "3 tries" in failure.reason


def test_a_rate_limit_asking_for_longer_than_max_wait_fails_at_once() -> None:
    run = caller(http(429, ModelRateLimitError, headers={"retry-after": "120"}), VALID)
    failure = fail(run)
    assert run.sleeps == []
    assert run.script.requests == 1
    assert "asked to wait 120 s" in failure.reason
    assert "30 s" in failure.reason
    assert failure.usage.calls == 1


def test_a_timeout_is_retried() -> None:
    run = caller(lambda: ModelTimeoutError("m", "Request timed out."), VALID)
    out, usage = run.caller.call("q", budget())
    assert out.claims
    assert run.sleeps == [1.0]
    assert usage.calls == 2


def test_repeated_timeouts_name_the_timeout() -> None:
    run = caller(lambda: ModelTimeoutError("m", "timed out"), policy=CallPolicy(timeout=7.5))
    failure = fail(run)
    assert "did not answer within 7.5 s" in failure.reason
    assert "3 tries" in failure.reason
    assert run.sleeps == [1.0, 2.0]


def test_a_connection_error_is_retried() -> None:
    run = caller(lambda: ModelConnectionError("m", "refused", phase="connect"), VALID)
    run.caller.call("q", budget())
    assert run.sleeps == [1.0]
    failure = fail(caller(lambda: ModelConnectionError("m", "refused")))
    assert "could not be reached" in failure.reason


# --------------------------------------------------------------------------- no retry


def test_a_rejected_key_fails_at_once_without_the_body() -> None:
    body = {"error": {"message": "Incorrect API key provided: sk-test-123456789."}}
    run = caller(http(401, ModelAuthenticationError, body=body), VALID)
    failure = fail(run)
    assert "rejected the API key" in failure.reason
    assert "HTTP 401" in failure.reason
    assert "sk-" not in failure.reason
    assert run.script.requests == 1
    assert run.sleeps == []
    assert failure.usage.calls == 1


def test_an_unknown_model_fails_at_once() -> None:
    run = caller(http(404, ModelNotFoundError), VALID)
    failure = fail(run)
    assert "does not know the model 'm'" in failure.reason
    assert "HTTP 404" in failure.reason
    assert run.script.requests == 1
    assert run.sleeps == []


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (http(402, ModelQuotaExceededError), "quota"),
        (http(400, ModelContextWindowExceededError), "longer than the model accepts"),
        (http(400, body="bad request"), "refused the request (HTTP 400)"),
        (http(422), "refused the request (HTTP 422)"),
    ],
)
def test_other_client_errors_fail_at_once(error: Callable[[], Exception], words: str) -> None:
    run = caller(error, VALID)
    failure = fail(run)
    assert words in failure.reason
    assert run.script.requests == 1
    assert run.sleeps == []


def test_a_long_provider_message_is_cut_to_one_line() -> None:
    body = "first line\n" + "x" * 500 + "\nsk-at-the-end"
    failure = fail(caller(http(400, body=body)))
    assert "sk-at-the-end" not in failure.reason
    assert len(failure.reason) < 260
    assert failure.reason.endswith("….")


# --------------------------------------------------------------------------- output format


@pytest.mark.parametrize("output_retries", [0, 1, 2])
def test_output_that_never_validates_fails_after_output_retries_plus_one(
    output_retries: int,
) -> None:
    run = caller(INVALID, policy=CallPolicy(output_retries=output_retries))
    spent = budget()
    failure = fail(run, spent)
    tries = output_retries + 1
    assert "did not match the required format" in failure.reason
    assert f"after {tries} tr" in failure.reason
    assert run.script.requests == tries
    assert failure.usage.calls == tries
    assert failure.usage.input_tokens > 0
    assert spent.calls == tries
    assert run.sleeps == []


def test_text_that_is_not_json_fails_the_format_check() -> None:
    run = caller(ModelResponse(parts=[TextPart("{not json")]))
    failure = fail(run)
    assert "did not match the required format" in failure.reason
    assert run.script.requests == 2
    assert failure.usage.calls == 2


def test_one_bad_output_then_a_good_one_succeeds_in_one_try() -> None:
    run = caller(INVALID, VALID)
    out, usage = run.caller.call("q", budget())
    assert out == AnswerOut.model_validate(VALID)
    assert usage.calls == 2
    assert run.sleeps == []


# --------------------------------------------------------------------------- budget


def test_a_second_call_past_the_budget_fails_without_a_request() -> None:
    run = caller(VALID)
    spent = budget(calls=1)
    run.caller.call("q", spent)
    failure = fail(run, spent)
    assert failure.kind == "budget"
    assert "all 1 of its model calls" in failure.reason
    assert run.script.requests == 1
    assert failure.usage.calls == 0
    assert spent.calls == 1


def test_a_call_that_needs_more_requests_than_are_left_fails_on_budget() -> None:
    run = caller(INVALID, VALID)
    spent = budget(calls=1)
    failure = fail(run, spent)
    assert failure.kind == "budget" and "budget" in failure.reason
    assert run.script.requests == 1
    assert spent.calls == 1
    assert failure.usage.calls == 1


def test_a_call_the_token_budget_cannot_fit_is_not_sent() -> None:
    run = caller(VALID)
    spent = budget(tokens=200)  # after the prompt's estimate, fewer than 256 tokens are left
    failure = fail(run, spent)
    assert failure.kind == "budget"
    assert "tokens and the run has 200 left of its 200" in failure.reason
    assert run.script.requests == 0 and spent.calls == 0 and spent.tokens == 0


def test_the_output_cap_is_clamped_to_what_the_budget_leaves() -> None:
    run = caller(VALID)
    estimate = estimate_tokens("What happened?", "")
    spent = budget(tokens=estimate + 500)
    run.caller.call("What happened?", spent)
    assert run.script.max_tokens == [500]  # not the policy's 2048
    roomy = caller(VALID)
    roomy.caller.call("What happened?", budget())
    assert roomy.script.max_tokens == [CallPolicy().max_output_tokens]


def test_a_call_that_could_pass_the_spend_cap_is_not_sent() -> None:
    run = caller(VALID)
    cost = PRICES.spend(ENGINE, estimate_tokens("q", ""), CallPolicy().max_output_tokens)
    assert cost is not None and cost > 0
    spent = RunBudget(max_calls=10, max_tokens=1_000_000, max_spend_usd=cost / 2)
    failure = fail(run, spent)
    assert failure.kind == "budget" and "spend cap" in failure.reason
    assert run.script.requests == 0
    enough = RunBudget(max_calls=10, max_tokens=1_000_000, max_spend_usd=cost * 2)
    caller(VALID).caller.call("q", enough)
    assert 0 < enough.spend_usd <= cost  # charged what the call really cost, at most the hold


def test_a_run_out_of_active_seconds_sends_nothing() -> None:
    run = caller(VALID)
    spent = RunBudget(max_calls=10, max_tokens=1_000_000, max_seconds=300)
    spent.add_seconds(300)  # e.g. recorded by the stages before a restart
    failure = fail(run, spent)
    assert failure.kind == "budget" and "300 active seconds" in failure.reason
    assert run.script.requests == 0


def test_the_offline_engine_is_never_stopped_by_the_budget() -> None:
    run = caller(VALID, engine="offline")
    spent = RunBudget(max_calls=0, max_tokens=0, max_spend_usd=0, max_seconds=1)
    spent.add_seconds(5)
    out, _ = run.caller.call("q", spent)
    assert out == AnswerOut.model_validate(VALID) and spent.calls == 0


def test_failed_tries_are_charged_to_the_budget() -> None:
    spent = budget(calls=2)
    run = caller(http(500))
    failure = fail(run, spent)
    assert run.script.requests == 2
    assert spent.calls == 2
    assert "budget" in failure.reason
    assert run.sleeps == [1.0]  # no wait once the budget has no call left for another try


def test_the_offline_engine_is_not_metered() -> None:
    run = caller(VALID, engine="offline")
    spent = budget(calls=0, tokens=0)
    out, usage = run.caller.call("q", spent)
    assert out.claims
    assert (spent.calls, spent.tokens) == (0, 0)
    assert usage.calls == 1
    assert usage.spend_usd == 0.0
    run.caller.call("q", spent)
    assert run.script.requests == 2


# --------------------------------------------------------------------------- classify


def test_classify_backoff_doubles_and_is_capped() -> None:
    policy = CallPolicy(backoff=1.5, max_wait=5.0)
    error = ModelHTTPError(status_code=500, model_name="m")
    assert [classify(error, n, policy).wait for n in (1, 2, 3, 4)] == [1.5, 3.0, 5.0, 5.0]


def test_classify_a_server_error_with_retry_after_waits_at_most_max_wait() -> None:
    policy = CallPolicy(max_wait=5.0)
    assert classify(http(503, ModelServerError, retry_after=2.0)(), 1, policy).wait == 2.0
    assert classify(http(503, ModelServerError, retry_after=60.0)(), 1, policy).wait == 5.0


def test_classify_a_rate_limit_with_zero_retry_after_retries_at_once() -> None:
    retry = classify(ModelRateLimitError("m", "slow down", retry_after=0.0), 3, CallPolicy())
    assert retry.wait == 0.0


@pytest.mark.parametrize(
    ("error", "retry"),
    [
        (ModelHTTPError(status_code=529, model_name="m"), True),
        (ModelRequestTimeout("m", 5.0), True),
        (ModelServerError("m", "internal"), True),
        (ModelAuthenticationError("m", "bad key"), False),
        (ModelNotFoundError("m", "no model"), False),
        (ModelHTTPError(status_code=403, model_name="m"), False),
        (ModelHTTPError(status_code=408, model_name="m"), True),
        (ModelHTTPError(status_code=409, model_name="m"), True),
        (ModelHTTPError(status_code=422, model_name="m"), False),
    ],
)
def test_classify_decides_what_is_worth_retrying(error: ModelAPIError, retry: bool) -> None:
    decision = classify(error, 1, CallPolicy())
    assert (decision.wait is not None) is retry
    assert decision.reason
