"""Calling a model: bounded retries with backoff, then a clear failure. Never a fallback.

One role's call is at most `attempts` tries of one Pydantic AI agent run:

* 429 (rate limited): wait what the provider asks, read as precisely as it says it
  (`retry-after-ms`, `retry-after`, the reset of the used-up `x-ratelimit-*` or
  `anthropic-ratelimit-*` limit: `_provider_wait`), when it is at most `max_wait` seconds;
  a longer wait fails the stage at once rather than stall the run.
* 5xx, 529 (overloaded), 408, 409, connection errors and timeouts: wait `backoff`,
  doubling each time (capped at `max_wait`), then try again.
* Any other 4xx (bad key, unknown model, quota used up, prompt too long): no retry; these
  do not get better by waiting.
* Output that is malformed or does not match the schema: Pydantic AI sends the validation
  error back to the model up to `output_retries` times within one try; after that the stage
  fails, saying how many requests it took.
* A reply that is not its protocol's response at all (Chat tool arguments sent as an object,
  text where JSON was due: Pydantic AI's "Invalid response from ..."): not retried, since the
  server answers the same way again, and counted at the request's estimated input tokens,
  since the provider's own count could not be read either.
* A reply the provider itself ended early is not a format error and is never sent again:
  cut off at the output cap (`finish_reason` `length`: Chat `length`, Responses
  `incomplete` / `max_output_tokens`, Anthropic `max_tokens`), refused (Chat `refusal`,
  Responses `refusal` content, Anthropic `stop_reason: refusal`) or stopped by a content
  filter. `StopEarlyReplies` raises on such a response the moment it arrives (Pydantic AI
  alone would send a cut-off tool call back for a retry with the same cap, and a refusal
  with some text too), and the stage fails at once with its own reason (`stop_reason`).
* The run's budget (`RunBudget`: model calls, tokens, estimated spend, active seconds) is
  **reserved before each try**: the prompt's input tokens are estimated (characters / 3,
  instructions and output schema included: generous for English), the try's `max_tokens`
  is clamped to what the budget leaves after that input, and its estimated cost at the
  model's price must fit the spend left. A try that does not fit is not sent: the stage
  fails with `kind="budget"`, and the gate holds the run. After the try, what it really
  used is charged; Pydantic AI's usage limits stop a try that would run past the budget
  on retries within it.

A request may carry content besides its text (an image: `ATTACHMENTS`, after the prompt in
the same user message); a caller reserves its tokens as `extra_tokens`.

The SDK's own retries are switched off (`max_retries=0`) so that these bounds are the only
ones. Every try's requests and tokens are counted, failed ones included.

A stored run's budget carries its ledger (`CallLedger`): every try is recorded there as it
returns, a reply with its output, under a key naming what the call sends. A stage re-run
after a crash that asks the same under the same key gets the recorded reply back and sends
nothing: a reply is paid for once. The key also rides along as the `X-Evidence-Desk-Call`
header, so a provider's logs can be matched with the run's ledger.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import (
    ContentFilterError,
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelContextWindowExceededError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelQuotaExceededError,
    ModelRateLimitError,
    ModelRequestTimeout,
    ModelServerError,
    ModelTimeoutError,
    ModelUnavailableError,
    OutputTokenLimitExceeded,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart, UserContent
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage, UsageLimits

from .base import AgentFailure, CallLedger, FailureKind, ModelUsage, RunBudget
from .prices import PriceTable
from .providers import OFFLINE

OutT = TypeVar("OutT")

CALL_HEADER = "X-Evidence-Desk-Call"
# The keyword of `ModelCaller.call` whose content follows the prompt in its user message.
ATTACHMENTS = "attachments"
# How Pydantic AI starts the error for a reply that is not its protocol's response.
UNREADABLE = "Invalid response from"


@dataclass(frozen=True)
class CallPolicy:
    """Bounds on one role's call (settings: `model_timeout`, `model_attempts`, ...)."""

    timeout: float = 60.0
    attempts: int = 3
    backoff: float = 1.0
    max_wait: float = 30.0
    output_retries: int = 1
    max_output_tokens: int = 2048
    # How a model that reasons by default is asked to think (`roles.reasoning_settings`);
    # such a model gets `reasoning_max_output_tokens` instead of `max_output_tokens`.
    reasoning_effort: str = "low"
    reasoning_max_output_tokens: int = 8192
    reasons: bool = False  # the role's model reasons: its cap is the reasoning one


@dataclass(frozen=True)
class _Retry:
    wait: float | None  # None: do not retry
    reason: str


def _status(exc: ModelAPIError) -> str:
    code = exc.status_code if isinstance(exc, ModelHTTPError) else None
    return f" (HTTP {code})" if code else ""


# How rate-limit headers state a wait: seconds (a fraction too), and a Go duration as OpenAI's
# `x-ratelimit-reset-*` send it (`6m0s`, `1.5s`, `20ms`).
_SECONDS = re.compile(r"\d+(?:\.\d+)?")
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?(?:ms|h|m|s))+")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_DURATION_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def _reset_seconds(value: str) -> float | None:
    """Seconds until a rate limit resets: an OpenAI duration (`6m0s`) or an Anthropic RFC 3339
    time (`2025-06-01T12:00:30Z`); None when it is neither."""
    value = value.strip()
    if _DURATION.fullmatch(value):
        return sum(float(n) * _DURATION_UNITS[u] for n, u in _DURATION_PART.findall(value))
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _provider_wait(exc: ModelAPIError) -> float | None:
    """The seconds the provider says to wait before the next try, as precisely as it says it,
    or None when it does not say.

    `retry-after-ms` is exact (Pydantic AI reads it, else a whole-second or HTTP-date
    `retry-after`, into `retry_after`; a fractional `retry-after`, which it misses, is read
    here). The reset of each limit the provider reports used up (`remaining` 0 or not sent:
    OpenAI's `x-ratelimit-reset-{requests,tokens}` durations, Anthropic's
    `anthropic-ratelimit-*-reset` times) refines a whole-second `retry-after` when it falls
    within the second that was rounded up, and is the wait when no `retry-after` is sent.
    """
    headers = (exc.headers if isinstance(exc, ModelHTTPError) else None) or {}
    stated = exc.retry_after
    if stated is not None and "retry-after-ms" in headers:
        return stated
    raw = headers.get("retry-after", "").strip()
    if stated is None and _SECONDS.fullmatch(raw):
        stated = float(raw)
    resets: list[float] = []
    for name, value in headers.items():
        if name.startswith("x-ratelimit-reset-"):
            remaining = headers.get(name.replace("-reset-", "-remaining-"), "0")
        elif name.startswith("anthropic-ratelimit-") and name.endswith("-reset"):
            remaining = headers.get(name.removesuffix("-reset") + "-remaining", "0")
        else:
            continue
        seconds = _reset_seconds(value)
        if seconds is not None and remaining.strip() == "0":
            resets.append(seconds)
    if stated is None:
        return max(resets, default=None)
    if not stated.is_integer():
        return stated
    finer = [seconds for seconds in resets if stated - 1 < seconds <= stated]
    return max(finer, default=stated)


def classify(exc: ModelAPIError, attempt: int, policy: CallPolicy) -> _Retry:
    """Whether to try again after `exc`, after how long, and how to say what went wrong."""
    backoff = min(policy.backoff * 2 ** (attempt - 1), policy.max_wait)
    status = _status(exc)
    if isinstance(exc, ModelAuthenticationError):
        return _Retry(None, f"the provider rejected the API key{status}")
    if isinstance(exc, ModelNotFoundError):
        return _Retry(None, f"the provider does not know the model '{exc.model_name}'{status}")
    if isinstance(exc, ModelContextWindowExceededError):
        return _Retry(None, f"the request is longer than the model accepts{status}")
    if isinstance(exc, ModelQuotaExceededError):
        return _Retry(None, f"the account's quota with the provider is used up{status}")
    asked = _provider_wait(exc)
    if isinstance(exc, ModelRateLimitError) or (
        isinstance(exc, ModelHTTPError) and exc.status_code == 429
    ):
        if asked is not None and asked > policy.max_wait:
            seconds = f"{asked:.1f}".removesuffix(".0")
            return _Retry(
                None,
                f"the provider is rate limiting and asked to wait {seconds} s, "
                f"longer than the {policy.max_wait:g} s the desk waits{status}",
            )
        wait = backoff if asked is None else max(asked, 0.0)
        return _Retry(wait, f"the provider is rate limiting{status}")
    if isinstance(exc, ModelHTTPError) and exc.status_code in (408, 409):
        return _Retry(backoff, f"the provider asked to try again{status}")
    if isinstance(exc, ModelRequestTimeout | ModelTimeoutError):
        return _Retry(backoff, f"the provider did not answer within {policy.timeout:g} s")
    if isinstance(exc, ModelConnectionError):
        return _Retry(backoff, "the provider could not be reached")
    if isinstance(exc, ModelServerError | ModelUnavailableError) or (
        isinstance(exc, ModelHTTPError) and exc.status_code >= 500
    ):
        wait = backoff if asked is None else min(asked, policy.max_wait)
        return _Retry(wait, f"the provider had a server error{status}")
    return _Retry(None, f"the provider refused the request{status}: {_first_line(exc)}")


_SECRET = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{6,}|\bBearer\s+\S+|\b(?:api[_-]?key|token)[=:]\s*\S+",
    re.IGNORECASE,
)


def _first_line(exc: BaseException, limit: int = 160) -> str:
    """The error's text on one line, cut short, with anything shaped like a key redacted."""
    return _one_line(str(exc), limit)


def _one_line(text: str, limit: int = 160) -> str:
    """`text` on one line, cut short, with anything shaped like a key redacted."""
    line = _SECRET.sub("[redacted]", " ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


class RepliedCutOff(OutputTokenLimitExceeded):
    """Raised by `StopEarlyReplies`: the reply reached the output cap."""


class RepliedFiltered(ContentFilterError):
    """Raised by `StopEarlyReplies`: the reply was refused or filtered."""


@dataclass
class StopEarlyReplies(AbstractCapability[None]):
    """Ends a try the moment a reply arrives that the provider ended early: cut off at the
    output cap (`finish_reason` `length`, or output tokens that reached the cap whatever the
    server says: llama-cpp-python reports a cut-off tool call as `tool_calls`) or stopped by
    a refusal or content filter (`content_filter`). Sending it back as a format error would
    only repeat it; the response rides along as the exception's body, for `stop_reason`.
    Raised here, the response is not committed to the run, so Pydantic AI does not count its
    request (its tokens it does): the caller counts it."""

    async def after_model_request(
        self,
        ctx: RunContext[None],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        cap = (request_context.model_settings or {}).get("max_tokens")
        # llama-cpp-python says `tool_calls` of a call its cap cut short: the count tells.
        full = cap is not None and response.usage.output_tokens >= cap
        if response.finish_reason not in ("length", "content_filter") and not full:
            return response
        body = ModelMessagesTypeAdapter.dump_json([response]).decode()
        if response.finish_reason == "content_filter":
            raise RepliedFiltered("the provider stopped the reply", body=body)
        raise RepliedCutOff("the reply was cut off at the output cap", body=body)


_STOP_EARLY = StopEarlyReplies()  # holds no state: one for every run


def _stopped_response(exc: UnexpectedModelBehavior) -> ModelResponse | None:
    """The response an early stop carried as its body (`StopEarlyReplies`, or Pydantic AI's
    own `ContentFilterError`), if it can be read back."""
    if not exc.body:
        return None
    try:
        messages = ModelMessagesTypeAdapter.validate_json(exc.body)
    except ValidationError:
        return None
    return next((m for m in reversed(messages) if isinstance(m, ModelResponse)), None)


def _cap_hint(policy: CallPolicy, cap: int) -> str:
    if cap < policy.max_output_tokens:
        return "the run's token budget left no more; raise EVIDENCE_DESK_MAX_MODEL_TOKENS"
    if policy.reasons:
        return (
            "reasoning models spend it thinking; raise "
            "EVIDENCE_DESK_MODEL_REASONING_MAX_OUTPUT_TOKENS or lower "
            "EVIDENCE_DESK_MODEL_REASONING_EFFORT"
        )
    return "raise EVIDENCE_DESK_MODEL_MAX_OUTPUT_TOKENS"


def stop_reason(exc: UnexpectedModelBehavior, policy: CallPolicy, cap: int) -> str | None:
    """Why the provider ended the reply early (cut off, refused, filtered), in one sentence
    without its final period; None when `exc` is some other unexpected behaviour (output
    that broke the schema). `cap`: the output cap the try was sent with."""
    response = _stopped_response(exc)
    finish = response.finish_reason if response is not None else None
    details = (response.provider_details if response is not None else None) or {}
    if isinstance(exc, OutputTokenLimitExceeded) or finish == "length":
        if details.get("finish_reason") == "model_context_window_exceeded":
            return (
                "the request and its reply filled the model's context window before the "
                "answer was finished (fewer or shorter sources would fit: lower "
                "EVIDENCE_DESK_MAX_SOURCES)"
            )
        return (
            f"the model used its whole output cap of {cap} tokens before finishing its "
            f"answer ({_cap_hint(policy, cap)})"
        )
    if not isinstance(exc, ContentFilterError) and finish != "content_filter":
        return None
    # OpenAI puts a refusal's text in `refusal` (Chat and Responses alike); Anthropic stops
    # with `refusal`, its text (if any) in `refusal` or in what the model wrote before it.
    if "refusal" not in details and details.get("finish_reason") != "refusal":
        return "the provider's content filter stopped the reply"
    stated = details.get("refusal")
    if not stated and response is not None:
        stated = "".join(p.content for p in response.parts if isinstance(p, TextPart))
    said = _one_line(str(stated)) if stated else ""
    return "the model refused to answer" + (f" ({said})" if said else "")


def _budget_reason(budget: RunBudget) -> str:
    return (
        f"the run used its budget of {budget.max_calls} model calls and {budget.max_tokens} tokens"
    )


CHARS_PER_TOKEN = 3  # a generous estimate for English prose and JSON: most tokenizers do ~4
MIN_OUTPUT_TOKENS = 256  # a try that could answer in fewer is not worth sending


def estimate_tokens(*texts: str) -> int:
    """The input tokens a request carrying `texts` will use, rounded up generously."""
    return sum(len(t) for t in texts) // CHARS_PER_TOKEN + 16 * len(texts)


@dataclass(frozen=True)
class Reservation:
    """What one try may use: its output cap and what it is expected to cost at most."""

    max_output_tokens: int
    input_estimate: int
    spend_usd: float | None


def _tries(n: int) -> str:
    return "1 try" if n == 1 else f"{n} tries"


class ModelCaller(Generic[OutT]):
    """Runs one role's agent under a `CallPolicy`, counting usage against a `RunBudget`."""

    def __init__(
        self,
        role: str,
        engine: str,
        agent: Agent[None, OutT] | None,
        output: type[OutT],
        policy: CallPolicy,
        prices: PriceTable,
        *,
        sleep: Callable[[float], None] = time.sleep,
        overhead: str = "",
        extra_tokens: int = 0,
    ) -> None:
        """`agent`: what each try runs (None for a caller that overrides `send`).
        `output`: the agent's output type (a ledger keeps replies as its JSON).
        `overhead`: the text every request sends besides the prompt (instructions, the
        output tool's schema), counted in each reservation. `extra_tokens`: the input
        tokens each request carries that are not text (an image), counted likewise."""
        self.role = role
        self.engine = engine
        self.agent = agent
        self.policy = policy
        self.prices = prices
        self.metered = engine != OFFLINE  # the offline engine spends no budget
        self._sleep = sleep
        # What every request carries besides the prompt: the instructions and output schema.
        self._overhead = overhead
        self._extra_tokens = extra_tokens
        self._output = TypeAdapter(output)

    def _charge(
        self,
        budget: RunBudget,
        calls: int,
        run: RunUsage,
        key: str | None = None,
        output: OutT | None = None,
    ) -> None:
        """Charge what a try used (its spend at the model's price, when it has one), and
        record the try in the run's ledger under `key`, with its output when it replied."""
        if not self.metered:
            return
        usage = self.prices.usage(self.engine, calls, run.input_tokens, run.output_tokens)
        budget.charge(calls, run.total_tokens, usage.spend_usd or 0.0)
        if budget.ledger is not None and key is not None:
            text = None if output is None else self._output.dump_json(output).decode()
            budget.ledger.record(key, self.role, usage, text)

    def _recorded(
        self, ledger: CallLedger | None, key: str | None
    ) -> tuple[OutT, ModelUsage] | None:
        """The reply the run's ledger already holds under `key` (a re-run stage), if any;
        the budget was charged for it when the run was resumed."""
        if ledger is None or key is None:
            return None
        reply = ledger.reply(key)
        return None if reply is None else (self._output.validate_json(reply.output), reply.usage)

    def _timeout(self, budget: RunBudget) -> float:
        """A request's timeout: the policy's, or the run's active seconds left if fewer."""
        left = budget.seconds_left()
        return self.policy.timeout if left is None else max(min(self.policy.timeout, left), 1.0)

    def nothing(self) -> ModelUsage:
        """The usage of a call that was not needed (priced at zero, when the model has a price)."""
        return self.prices.usage(self.engine)

    def _usage(self, run: RunUsage, failed_tries: int) -> ModelUsage:
        calls = run.requests + failed_tries
        return self.prices.usage(self.engine, calls, run.input_tokens, run.output_tokens)

    def _fail(
        self,
        reason: str,
        run: RunUsage,
        failed: int,
        *,
        kind: FailureKind = "agent",
        verb: str = "failed",
    ) -> AgentFailure:
        """`verb`: "stopped" for a reply cut off at its cap; a budget stop always says it."""
        usage = self._usage(run, failed)
        if kind == "budget":
            return AgentFailure(self.role, f"The {self.role} stopped: {reason}.", usage, kind)
        return AgentFailure(self.role, f"The {self.role} {verb}: {reason}.", usage)

    def estimate_input(self, prompt: str) -> int:
        """The input tokens one request for `prompt` is reserved at."""
        return estimate_tokens(prompt, self._overhead) + self._extra_tokens

    def reserve(self, prompt: str, budget: RunBudget) -> Reservation | str:
        """What the next try may use, or why the budget cannot fit it (a reason)."""
        calls_left, tokens_left = budget.remaining()
        if calls_left <= 0:
            return f"the run has used all {budget.max_calls} of its model calls"
        seconds = budget.seconds_left()
        if seconds is not None and seconds <= 0:
            return f"the run has used its {budget.max_seconds:g} active seconds"
        estimate = self.estimate_input(prompt)
        room = tokens_left - estimate
        if room < MIN_OUTPUT_TOKENS:
            return (
                f"the next {self.role} call needs about {estimate + MIN_OUTPUT_TOKENS} tokens "
                f"and the run has {tokens_left} left of its {budget.max_tokens}"
            )
        out = min(self.policy.max_output_tokens, room)
        cost = self.prices.spend(self.engine, estimate, out)
        left = budget.spend_left()
        if cost is not None and left is not None and cost > left:
            return (
                f"the next {self.role} call could cost up to ${cost:.4f} and the run has "
                f"${left:.4f} left of its ${budget.max_spend_usd:.2f} spend cap"
            )
        return Reservation(out, estimate, cost)

    def call(self, prompt: str, budget: RunBudget, **run_kwargs: Any) -> tuple[OutT, ModelUsage]:
        """The agent's output for `prompt` and what it cost, or `AgentFailure`.

        `attachments=[...]` (`ATTACHMENTS`): content sent after the prompt in the same user
        message (an image, as `BinaryContent`). The ledger names a call by its prompt alone,
        so a prompt sent with attachments names them (by their hash)."""
        ledger = budget.ledger if self.metered else None
        key = ledger.key(self.role, self.engine, prompt) if ledger is not None else None
        recorded = self._recorded(ledger, key)
        if recorded is not None:
            return recorded
        total = RunUsage()
        failed = 0  # requests sent that Pydantic AI did not count (raised first, stopped early)
        for attempt in range(1, self.policy.attempts + 1):
            limits = None
            cap = self.policy.max_output_tokens
            estimate = self.estimate_input(prompt)
            if self.metered:
                reserved = self.reserve(prompt, budget)
                if isinstance(reserved, str):
                    raise self._fail(reserved, total, failed, kind="budget")
                calls_left, tokens_left = budget.remaining()
                limits = UsageLimits(request_limit=calls_left, total_tokens_limit=tokens_left)
                cap = reserved.max_output_tokens
                run_kwargs["model_settings"] = ModelSettings(
                    max_tokens=reserved.max_output_tokens,
                    timeout=self._timeout(budget),
                    extra_headers={CALL_HEADER: key} if key else {},
                )
            run = RunUsage()
            try:
                output = self.send(prompt, run, limits, run_kwargs)
            except UsageLimitExceeded:
                self._charge(budget, max(run.requests, 1), run, key)
                total += run
                raise self._fail(_budget_reason(budget), total, failed, kind="budget") from None
            except ModelAPIError as exc:
                extra = 0 if run.requests else 1
                failed += extra
                self._charge(budget, run.requests + extra, run, key)
                total += run
                retry = classify(exc, attempt, self.policy)
                if retry.wait is None:
                    raise self._fail(retry.reason, total, failed) from exc
                if attempt == self.policy.attempts:
                    raise self._fail(f"{retry.reason}, {_tries(attempt)}", total, failed) from exc
                if self.metered and min(budget.remaining()) <= 0:
                    break  # no budget left for another try: do not wait for nothing
                self._sleep(retry.wait)
                continue
            except UnexpectedModelBehavior as exc:
                stopped_here = isinstance(exc, RepliedCutOff | RepliedFiltered)
                extra = 1 if stopped_here or not run.requests else 0  # sent, not counted
                failed += extra
                unreadable = str(exc).startswith(UNREADABLE)
                if unreadable and not run.input_tokens:
                    # The provider charged for a reply nobody could read; count what the
                    # request was estimated to carry, so the budget does not forget it.
                    run.input_tokens = estimate
                self._charge(budget, run.requests + extra, run, key)
                total += run
                stopped = stop_reason(exc, self.policy, cap)
                if stopped is not None:
                    # Not retried: the same request under the same cap ends the same way.
                    verb = "stopped" if isinstance(exc, OutputTokenLimitExceeded) else "failed"
                    raise self._fail(stopped, total, failed, verb=verb) from exc
                if unreadable:
                    # Not the model's output but the server's reply (arguments as an object,
                    # plain text for JSON, ...): another try gets the same shape back.
                    raise self._fail(
                        f"the provider's reply could not be read as its protocol's response "
                        f"({_first_line(exc)})",
                        total,
                        failed,
                    ) from exc
                raise self._fail(
                    "the model's output did not match the required format after "
                    f"{_tries(max(run.requests + extra, 1))}: {_first_line(exc)}",
                    total,
                    failed,
                ) from exc
            except Exception as exc:
                # Anything else (an SDK surprise, a bug) ends the stage too: the run is held
                # with the reason instead of crashing, and nothing is published.
                self._charge(budget, run.requests, run, key)
                total += run
                raise self._fail(
                    f"the model call failed unexpectedly ({type(exc).__name__}: "
                    f"{_first_line(exc)})",
                    total,
                    failed,
                ) from exc
            self._charge(budget, run.requests, run, key, output)
            total += run
            return output, self._usage(total, failed)
        raise self._fail(_budget_reason(budget), total, failed, kind="budget")

    def send(
        self, prompt: str, run: RunUsage, limits: UsageLimits | None, run_kwargs: dict[str, Any]
    ) -> OutT:
        """One try: the agent's output for `prompt`, its usage added to `run`.

        A caller that sends its request another way (`citations.CitingCaller`) overrides
        this and raises what Pydantic AI would: `ModelAPIError` for an error response, and
        `RepliedCutOff` or `RepliedFiltered` for a reply ended early (its tokens in `run`,
        its request not: the loop counts that one)."""
        if self.agent is None:  # a caller without an agent overrides `send`
            raise NotImplementedError(f"{type(self).__name__} sends its own requests")
        kwargs = dict(run_kwargs)
        attached: Sequence[UserContent] = kwargs.pop(ATTACHMENTS, ())
        user: str | list[UserContent] = [prompt, *attached] if attached else prompt
        result = self.agent.run_sync(
            user, usage=run, usage_limits=limits, capabilities=[_STOP_EARLY], **kwargs
        )
        output: OutT = result.output
        return output
