"""A lesson's optional picture: an image model draws it, a vision model looks at it.

Illustrations are off unless `EVIDENCE_DESK_ILLUSTRATOR` names an image engine, and even then
a picture is made only when an explanation is asked to illustrate (`explain --illustrate`):
never on every click. Three steps, the last two advice; code's checks on the bytes
(`images.py`) and the illustrate stage (`runs/illustrate.py`) decide what a reader sees:

* **The planning step** is code (`prompts.illustration_prompt`): a fixed request for a
  plain, text-free, non-photographic explanatory picture around the lesson's kept texts,
  neutralized as data and capped. No model writes the image prompt, so no passage can.
* **The image call** (`ImagesIllustrator.draw`): the OpenAI Images API
  (`POST {base_url}/images/generations`, one 1024x1024 image as base64) through the
  `openai` SDK, its own retries off. Before each try the run's budget must hold two more
  calls (the image and its review) and, within the spend left,
  `EVIDENCE_DESK_ILLUSTRATION_PRICE_USD` plus the most the review could cost (a picture that
  could not be reviewed would be paid for and never shown); a try that does not fit is not
  sent (`AgentFailure`, kind `budget`). A reply is charged one call and the price;
  an error reply one call and no spend, a try lost to a timeout or a dropped connection the
  price too (the picture may have been made). Every try is recorded in the run's ledger
  (`CallLedger`) under a key naming the prompt, a reply with its image (`Drawn`), so a
  resumed stage reads the picture back and sends nothing. Image tokens are not counted
  against the run's token budget: a picture is priced by the setting, not by tokens.
* **The review of the picture as it is seen** (`ImageReviewer`): a chat request to a vision
  model (`EVIDENCE_DESK_ILLUSTRATION_REVIEWER`, else the teacher's engine) carrying the
  image itself (`BinaryContent`: an `image_url` data URL on Chat) after the lesson's kept
  texts, for a typed verdict (`ImageReviewOut`). It is a role like the others: its call goes
  through `ModelCaller`, with the image's tokens reserved (`IMAGE_TOKENS`) and its prompt
  naming the image's hash, so its ledger key names the picture it judged.

`gpt-image-*` models always answer in base64 and refuse `response_format`; they are asked
for `output_format: png` instead. Other models (`dall-e-*`, OpenAI-compatible servers) get
`response_format: b64_json`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import BinaryContent

from ..types import ImageReview
from . import prompts
from .base import Advice, AgentFailure, CallLedger, ModelUsage, RunBudget
from .calls import ATTACHMENTS, CALL_HEADER, CallPolicy
from .images import MAX_IMAGE_BYTES, ImageFacts, NotAnImage, read_image
from .outputs import _Out
from .providers import EngineSpec
from .roles import _Role

if TYPE_CHECKING:
    from openai import OpenAI

ROLE = "illustrator"
IMAGE_SIZE = "1024x1024"
# What one 1024x1024 image is reserved at as a reviewer's input (OpenAI bills it at 765
# tokens in high detail on GPT-4o and at up to 1,659 on GPT-4.1 mini): generous.
IMAGE_TOKENS = 1700
IMAGE_TIMEOUT_FACTOR = 3  # an image takes longer than text: 3 x EVIDENCE_DESK_MODEL_TIMEOUT
PRICE_SOURCE = "EVIDENCE_DESK_ILLUSTRATION_PRICE_USD"
_RETRIED = (408, 409)


class Drawn(BaseModel):
    """An image call's reply as the run's ledger keeps it: the image (base64) when it fits
    `MAX_IMAGE_BYTES`, its hash and size always."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    b64: str = ""
    sha256: str
    size: int

    @classmethod
    def of(cls, b64: str | None) -> Drawn:
        try:
            data = base64.b64decode(b64 or "", validate=True)
        except (binascii.Error, ValueError):
            data = b""
        kept = (b64 or "") if 0 < len(data) <= MAX_IMAGE_BYTES else ""
        return cls(b64=kept, sha256=hashlib.sha256(data).hexdigest(), size=len(data))

    def data(self) -> bytes:
        return base64.b64decode(self.b64)

    def facts(self) -> ImageFacts:
        """Code's checks on the bytes (`images.read_image`); `NotAnImage` says why not."""
        if self.size == 0:
            raise NotAnImage("the reply holds no image")
        if self.size > MAX_IMAGE_BYTES:
            raise NotAnImage(
                f"the image is {self.size:,} bytes, more than the {MAX_IMAGE_BYTES:,} a "
                "picture may be"
            )
        return read_image(self.data())


class ImageReviewOut(_Out):
    """Your verdict on the picture, judged from the picture itself."""

    shows_text: bool = Field(description="True when the picture contains any writing at all.")
    depicts_only_the_lesson: bool = Field(
        description="True only when everything it depicts belongs to the lesson's idea."
    )
    misleading: bool = Field(
        description="True when it suggests what the lesson does not say, or looks like a "
        "photograph or a record of a real event."
    )
    reason: str = Field(description="One sentence: what the picture shows.")


class ImageReviewer(_Role[ImageReviewOut]):
    """The image reviewer role: a vision model's verdict on the picture it is shown."""

    role = "reviewer"
    tool = "submit_image_review"
    task = prompts.IMAGE_REVIEWER_TASK
    output = ImageReviewOut
    extra_tokens = IMAGE_TOKENS

    def review(
        self, image: bytes, media_type: str, texts: Sequence[str], budget: RunBudget
    ) -> Advice[ImageReview]:
        prompt = prompts.image_review_prompt(texts, hashlib.sha256(image).hexdigest())
        seen = BinaryContent(data=image, media_type=media_type, vendor_metadata={"detail": "high"})
        out, usage = self._call.call(prompt, budget, **{ATTACHMENTS: [seen]})
        verdict = ImageReview(
            shows_text=out.shows_text,
            depicts_only_the_lesson=out.depicts_only_the_lesson,
            misleading=out.misleading,
            reason=" ".join(out.reason.split())[:600],
        )
        return Advice(verdict, usage)

    def most_it_costs(self) -> float | None:
        """The most one review is reserved at: the longest lesson text it is sent, the
        image's tokens and the output cap (None: the model has no price)."""
        longest = prompts.image_review_prompt(["x" * prompts.MAX_REVIEW_LESSON_CHARS], "0" * 64)
        tokens = self._call.estimate_input(longest)
        return self._call.prices.spend(self.engine_id, tokens, self.policy.max_output_tokens)


class Illustrator(Protocol):
    """Draws a picture for an image prompt and has it reviewed (advice both)."""

    engine_id: str
    reviewer_id: str

    def draw(self, prompt: str, budget: RunBudget) -> Advice[Drawn]: ...

    def review(
        self, image: bytes, media_type: str, texts: Sequence[str], budget: RunBudget
    ) -> Advice[ImageReview]: ...


class ImagesIllustrator:
    """The OpenAI Images API as the image engine, and an `ImageReviewer`."""

    def __init__(
        self,
        engine: EngineSpec,
        client: OpenAI,
        price_usd: float,
        reviewer: ImageReviewer,
        policy: CallPolicy,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.engine_id = engine.id
        self.model = engine.model
        self.client = client
        self.price_usd = price_usd
        self.reviewer = reviewer
        self.reviewer_id = reviewer.engine_id
        self.policy = policy
        self._sleep = sleep

    def review(
        self, image: bytes, media_type: str, texts: Sequence[str], budget: RunBudget
    ) -> Advice[ImageReview]:
        return self.reviewer.review(image, media_type, texts, budget)

    def _usage(self, calls: int, billed: int) -> ModelUsage:
        spend = round(self.price_usd * billed, 6)
        return ModelUsage(self.engine_id, calls=calls, spend_usd=spend, price_source=PRICE_SOURCE)

    def _reserve(self, budget: RunBudget) -> str | None:
        """Why the budget cannot fit one more image call and the review after it, or None
        when it can: a picture that could not be reviewed would be paid for and not shown."""
        calls_left, _ = budget.remaining()
        if calls_left < 2:
            return (
                f"the run has {calls_left} of its {budget.max_calls} model calls left, and a "
                "picture takes two (the image and its review)"
            )
        seconds = budget.seconds_left()
        if seconds is not None and seconds <= 0:
            return f"the run has used its {budget.max_seconds:g} active seconds"
        left = budget.spend_left()
        need = self.price_usd + (self.reviewer.most_it_costs() or 0.0)
        if left is not None and need > left:
            return (
                f"a picture and its review could cost up to ${need:.4f} and the run has "
                f"${left:.4f} left of its ${budget.max_spend_usd:.2f} spend cap"
            )
        return None

    def _charge(
        self, budget: RunBudget, key: str | None, billed: bool, drawn: Drawn | None
    ) -> None:
        """Charge one try and record it in the run's ledger (its image when it replied)."""
        usage = self._usage(1, 1 if billed else 0)
        budget.charge(1, 0, usage.spend_usd or 0.0)
        if budget.ledger is not None and key is not None:
            output = None if drawn is None else drawn.model_dump_json()
            budget.ledger.record(key, ROLE, usage, output)

    def draw(self, prompt: str, budget: RunBudget) -> Advice[Drawn]:
        """The picture for `prompt` and what it cost, or `AgentFailure` (see the module
        docstring: the budget reserved before each try, every try in the ledger)."""
        ledger: CallLedger | None = budget.ledger
        key = ledger.key(ROLE, self.engine_id, prompt) if ledger is not None else None
        if ledger is not None and key is not None and (found := ledger.reply(key)) is not None:
            return Advice(Drawn.model_validate_json(found.output), found.usage)
        tries = billed = 0
        for attempt in range(1, self.policy.attempts + 1):
            refused = self._reserve(budget)
            if refused is not None:
                usage = self._usage(tries, billed)
                raise AgentFailure(ROLE, f"The {ROLE} stopped: {refused}.", usage, "budget")
            tries += 1
            try:
                drawn = self._send(prompt, key, budget)
            except Exception as exc:  # the SDK's errors, judged by `_retry`
                lost = _lost(exc)
                billed += lost
                self._charge(budget, key, lost, None)
                wait, reason = _retry(exc, attempt, self.policy)
                if wait is None or attempt == self.policy.attempts:
                    usage = self._usage(tries, billed)
                    raise AgentFailure(ROLE, f"The {ROLE} failed: {reason}.", usage) from exc
                self._sleep(wait)
                continue
            self._charge(budget, key, True, drawn)
            return Advice(drawn, self._usage(tries, billed + 1))
        raise AgentFailure(ROLE, f"The {ROLE} failed.", self._usage(tries, billed))

    def _send(self, prompt: str, key: str | None, budget: RunBudget) -> Drawn:
        """One request to the Images API."""
        left = budget.seconds_left()
        timeout = self.policy.timeout * IMAGE_TIMEOUT_FACTOR
        if left is not None:
            timeout = max(min(timeout, left), 1.0)
        extra: dict[str, Any] = (
            {"output_format": "png"}
            if self.model.startswith("gpt-image")
            else {"response_format": "b64_json"}
        )
        response = self.client.images.generate(
            model=self.model,
            prompt=prompt,
            n=1,
            size=IMAGE_SIZE,
            extra_headers={CALL_HEADER: key} if key else None,
            timeout=timeout,
            **extra,
        )
        data = getattr(response, "data", None) or []
        return Drawn.of(data[0].b64_json if data else None)


def _lost(exc: Exception) -> bool:
    """A try whose outcome is unknown (timed out, connection dropped): it may be billed."""
    import openai

    return isinstance(exc, openai.APIConnectionError)


def _retry(exc: Exception, attempt: int, policy: CallPolicy) -> tuple[float | None, str]:
    """Whether to try again after `exc` (the wait, None: not again) and what went wrong."""
    import openai

    backoff = min(policy.backoff * 2 ** (attempt - 1), policy.max_wait)
    if isinstance(exc, openai.APIConnectionError):
        return backoff, f"the provider could not be reached ({type(exc).__name__})"
    if not isinstance(exc, openai.APIStatusError):
        return None, f"the image call failed unexpectedly ({type(exc).__name__}: {exc})"
    status = exc.status_code
    said = _said(exc)
    if status == 429 and exc.code != "insufficient_quota":
        asked = _retry_after(exc)
        if asked is not None and asked > policy.max_wait:
            return None, f"the provider is rate limiting and asked to wait {asked:g} s (HTTP 429)"
        return (backoff if asked is None else asked), "the provider is rate limiting (HTTP 429)"
    if status >= 500 or status in _RETRIED:
        return backoff, f"the provider answered HTTP {status}: {said}"
    return None, f"the provider refused the request (HTTP {status}: {said})"


def _retry_after(exc: Any) -> float | None:
    raw = str(exc.response.headers.get("retry-after", "")).strip()
    try:
        return float(raw) if raw else None
    except ValueError:
        return None


def _said(exc: Any) -> str:
    """What the provider's error says, on one line: its `message` (the SDK's own message
    puts "Error code: N - " before it)."""
    body = exc.body if isinstance(exc.body, dict) else {}
    message = body.get("message")
    text = message if isinstance(message, str) else str(exc.message)
    return " ".join(text.split())[:200]
