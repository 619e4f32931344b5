"""The Anthropic answerer with Citations: passages in as search results, sentences out with
the words of the sources they rest on.

Anthropic's Messages API cites what a model writes when its sources arrive as
`search_result` content blocks with citations enabled (`prompts.citing_content`): each text
block of the reply carries `search_result_location` citations, naming a result by its
`search_result_index` and the text blocks of it the model used (`start_block_index` to
`end_block_index`, their text as `cited_text`). The provider, not the model, writes those
spans, so this answerer has no `rests_on` to fill and no output tool: citations do not work
with one, so the request is plain text.

Pydantic AI cannot send `search_result` blocks and drops `search_result_location` citations
from the text parts it returns, so the request goes through the Anthropic SDK's own client
(`providers.anthropic_client`: the key and base URL of the engine's Pydantic AI provider,
the SDK's retries off), inside the loop every other call runs in (`calls.ModelCaller`): the
budget reserved before each try, retries classified as Pydantic AI classifies the SDK's
errors, a reply cut off at its cap or refused ending the stage, every try charged and
recorded in the run's ledger. What the ledger keeps is `CitedReply`, the reply's text blocks
and their citations, so a re-run stage rebuilds the same draft without asking again.

From the reply to a draft (`cited_claims`): the text blocks, joined, are split into
sentences the way the checks split a draft. A sentence cites, in reading order, the source of
each result that the blocks it overlaps cite, and rests on each citation's sentences of that
result, as the passage has them when `cited_text` is those sentences (whatever white space
joins them), else on `cited_text` as given. A citation of a result the request did not hold,
or whose `source` is not that result's, is dropped. The claims are then rendered as a model's
claims are (`outputs.draft_of`), which keeps a span only where a cited passage holds it
verbatim, so a server that cites text its passage lacks rests the sentence on nothing. The
checks, the paraphrase tier and the gate judge the draft as they judge any other.

A model that reasons by default gets the reasoning output cap and no `temperature`; its
effort is not sent on this path (the model thinks as it does by default).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart
from pydantic_ai.models import Model
from pydantic_ai.usage import RunUsage, UsageLimits

from ..trust.claims import split_claims
from ..types import Draft, Plan, Source
from . import prompts
from .base import Advice, RunBudget
from .calls import CallPolicy, ModelCaller, RepliedCutOff, RepliedFiltered
from .outputs import ClaimOut, draft_of
from .prices import PriceTable
from .roles import reasoning_settings

if TYPE_CHECKING:
    from anthropic import Anthropic
    from anthropic.types import Message

_SPACE = re.compile(r"\s+")


class CitationOut(BaseModel):
    """One `search_result_location` citation of a text block, as the reply gave it."""

    search_result_index: int
    source: str = ""
    cited_text: str = ""
    start_block_index: int = 0
    end_block_index: int = 0


class TextOut(BaseModel):
    """One text block of the reply and its search-result citations (other kinds left out)."""

    text: str
    citations: list[CitationOut] = Field(default_factory=list)


class CitedReply(BaseModel):
    """What the ledger keeps of a citing answerer's reply: its text blocks, in order."""

    blocks: list[TextOut] = Field(default_factory=list)

    @classmethod
    def of(cls, message: Message) -> CitedReply:
        blocks: list[TextOut] = []
        for block in message.content:
            if block.type != "text":
                continue  # thinking blocks: not the answer
            cites = [
                CitationOut(
                    search_result_index=c.search_result_index,
                    source=c.source,
                    cited_text=c.cited_text,
                    start_block_index=c.start_block_index,
                    end_block_index=c.end_block_index,
                )
                for c in block.citations or ()
                if c.type == "search_result_location"
            ]
            blocks.append(TextOut(text=block.text, citations=cites))
        return cls(blocks=blocks)

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.blocks)


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


def cited_words(citation: CitationOut, result: prompts.SearchResult) -> list[str]:
    """The words of `result` a citation names: its sentences as the passage has them when
    `cited_text` is them (white space aside), else `cited_text` itself."""
    a, b = citation.start_block_index, citation.end_block_index
    if 0 <= a < b <= len(result.texts):
        sent = "".join(prompts.neutralize(t) for t in result.texts[a:b])
        if _squeezed(sent) == _squeezed(citation.cited_text):
            return list(result.texts[a:b])
    return [citation.cited_text]


def cited_claims(reply: CitedReply, results: Sequence[prompts.SearchResult]) -> list[ClaimOut]:
    """The reply as claims: one per sentence, citing the sources of the results its blocks
    cite (in reading order) and resting on the words those citations name."""
    marks: list[tuple[int, int, CitationOut]] = []
    at = 0
    for block in reply.blocks:
        marks += [(at, at + len(block.text), c) for c in block.citations]
        at += len(block.text)
    claims: list[ClaimOut] = []
    for sentence in split_claims(reply.text):
        cited: list[str] = []
        words: list[str] = []
        for start, end, c in marks:
            if not (start < sentence.end and sentence.start < end):
                continue
            if not 0 <= c.search_result_index < len(results):
                continue  # a result the request did not hold
            result = results[c.search_result_index]
            if c.source and c.source != result.source_id:
                continue  # the server contradicts itself: trust neither
            cited.append(result.source_id)
            words += cited_words(c, result)
        claims.append(
            ClaimOut(
                text=sentence.text,
                citations=list(dict.fromkeys(cited)),
                rests_on=list(dict.fromkeys(w for w in words if w.strip())),
            )
        )
    return claims


class CitingCaller(ModelCaller[CitedReply]):
    """`ModelCaller` whose try is one Messages request through the Anthropic SDK's client.

    The prompt is the request's user content as JSON (what the ledger's key names); the
    output cap, timeout and call header are the ones the loop reserved for the try."""

    def __init__(
        self,
        engine: str,
        client: Anthropic,
        model_name: str,
        instructions: str,
        policy: CallPolicy,
        prices: PriceTable,
        *,
        temperature: bool,
    ) -> None:
        super().__init__(
            "answerer", engine, None, CitedReply, policy, prices, overhead=instructions
        )
        self.client = client
        self.model_name = model_name
        self.instructions = instructions
        self.temperature = temperature  # send temperature 0 (not to a model that reasons)

    def send(
        self, prompt: str, run: RunUsage, limits: UsageLimits | None, run_kwargs: dict[str, Any]
    ) -> CitedReply:
        from pydantic_ai.models.anthropic._errors import map_api_errors

        settings = run_kwargs.get("model_settings") or {}
        request: dict[str, Any] = {
            "model": self.model_name,
            "max_tokens": settings.get("max_tokens", self.policy.max_output_tokens),
            "system": [{"type": "text", "text": self.instructions}],
            "messages": [{"role": "user", "content": json.loads(prompt)}],
            "timeout": settings.get("timeout", self.policy.timeout),
            "extra_headers": settings.get("extra_headers") or {},
        }
        if self.temperature:  # the API takes it; the SDK's signature no longer names it
            request["extra_body"] = {"temperature": 0.0}
        if limits is not None:
            limits.check_before_request(run)
        with map_api_errors(self.model_name):
            message = self.client.messages.create(**request)
        used = message.usage
        run.input_tokens += (
            used.input_tokens
            + (used.cache_creation_input_tokens or 0)
            + (used.cache_read_input_tokens or 0)
        )
        run.output_tokens += used.output_tokens
        reply = CitedReply.of(message)
        if message.stop_reason in ("max_tokens", "refusal"):
            raise _stopped(message.stop_reason, reply.text)
        run.requests += 1
        if limits is not None:
            limits.check_tokens(run)
        return reply


def _stopped(stop: str, text: str) -> RepliedCutOff | RepliedFiltered:
    """A reply the provider ended early, as `calls.StopEarlyReplies` raises it."""
    parts = [TextPart(content=text)] if text else []
    if stop == "max_tokens":
        cut = ModelResponse(parts=parts, finish_reason="length")
        body = ModelMessagesTypeAdapter.dump_json([cut]).decode()
        return RepliedCutOff("the reply was cut off at the output cap", body=body)
    refused = ModelResponse(
        parts=parts, finish_reason="content_filter", provider_details={"finish_reason": "refusal"}
    )
    body = ModelMessagesTypeAdapter.dump_json([refused]).decode()
    return RepliedFiltered("the provider stopped the reply", body=body)


class CitingAnswerer:
    """The answerer of an `anthropic:` engine in `auto` output mode: search results in,
    cited sentences out (module docstring)."""

    role = "answerer"
    mode = "citations"

    def __init__(
        self,
        engine: str,
        client: Anthropic,
        model: Model,
        policy: CallPolicy,
        prices: PriceTable,
    ) -> None:
        """`model`: the engine's Pydantic AI model, read for its profile only."""
        self.engine_id = engine
        self.instructions = prompts.CITING_ANSWERER_INSTRUCTIONS
        settings, reasons = reasoning_settings(model, policy.reasoning_effort)
        if reasons:
            policy = replace(
                policy, max_output_tokens=policy.reasoning_max_output_tokens, reasons=True
            )
        self.policy = policy
        self._call = CitingCaller(
            engine,
            client,
            model.model_name,
            self.instructions,
            policy,
            prices,
            temperature="temperature" in settings,
        )

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        content, results = prompts.citing_content(question, plan, sources)
        prompt = json.dumps(content, ensure_ascii=False)
        reply, usage = self._call.call(prompt, budget)
        return Advice(draft_of(cited_claims(reply, results), sources), usage)
