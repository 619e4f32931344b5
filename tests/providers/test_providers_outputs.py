"""What the output tools look like on the wire, and how the auditor's evidence is read.

* OpenAI (Chat Completions and Responses) gets `strict: true` on every output tool, with a
  schema in which every property is required: Pydantic AI turns strict mode on by itself
  only for a strict-compatible schema (`agents/outputs.py`, `_Out`). Anthropic gets no
  `strict` (the library leaves it off unless asked), exactly as before.
* The Responses API is told `store: false`, so it keeps no copy of the archive passages.
* An auditor that names sources (`"evidence": ["S1"]`, the form answers cite in) instead of
  passage ids is read as meaning that source's passages; naming only a source the claim
  does not cite still backs nothing.
* The words a supported claim rests on (`rests_on`) become the claim's spans: an answer in
  other words than its source's is published as a paraphrase on them, and without them it
  is held.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import (
    Model,
    Prompt,
    both_forms_audit,
    source_id_audit,
    uncited_source_audit,
    user_text,
)

from evidence_desk.testing.fakeproviders import FakeProvider, Protocol
from evidence_desk.types import CitedSpan, Decision, Receipt, Verdict

QUESTION = "When was the Erie Canal opened?"
OPENAI: tuple[Protocol, ...] = ("chat", "responses")


def run(make_desk: DeskFactory, protocol: Protocol, model: Model, **kw: Any) -> Receipt:
    with FakeProvider(protocol, model) as fake:
        receipt = Receipt.model_validate(
            make_desk(protocol, fake.base_url, **kw).ask(QUESTION).receipt
        )
    assert [role for role, _ in model.seen] == ["plan", "answer", "audit"]
    return receipt


def output_tool(protocol: Protocol, body: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request's only tool, and its parameter schema."""
    [tool] = body["tools"]
    if protocol == "chat":
        return tool["function"], tool["function"]["parameters"]
    if protocol == "responses":
        return tool, tool["parameters"]
    return tool, tool["input_schema"]


def objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema in `schema`, at any depth (`$defs` included)."""
    found: list[dict[str, Any]] = []
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            found.append(schema)
        for value in schema.values():
            found.extend(objects(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(objects(value))
    return found


@pytest.mark.parametrize("protocol", OPENAI)
def test_openai_output_tools_are_strict_with_every_field_required(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol)
    run(make_desk, protocol, model, max_sources=1)
    for role, body in model.seen:
        tool, schema = output_tool(protocol, body)
        assert tool["strict"] is True, role
        for obj in objects(schema):
            assert sorted(obj["required"]) == sorted(obj["properties"]), (role, obj)
            assert obj["additionalProperties"] is False
            assert all("default" not in p for p in obj["properties"].values()), (role, obj)


def test_anthropic_output_tools_are_sent_as_before_without_strict(
    make_desk: DeskFactory,
) -> None:
    model = Model("anthropic")
    receipt = run(make_desk, "anthropic", model, max_sources=1)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    for role, body in model.seen:
        if role == "answer":  # in `auto` mode the answerer cites, with no tool at all
            assert "tools" not in body and "tool_choice" not in body
            continue
        tool, schema = output_tool("anthropic", body)
        assert "strict" not in tool, role
        assert all(sorted(o["required"]) == sorted(o["properties"]) for o in objects(schema))


def test_the_responses_api_is_told_not_to_store_requests(make_desk: DeskFactory) -> None:
    model = Model("responses")
    run(make_desk, "responses", model, max_sources=1)
    assert [body["store"] for _, body in model.seen] == [False, False, False]


def test_chat_completions_requests_do_not_ask_to_be_stored(make_desk: DeskFactory) -> None:
    model = Model("chat")
    run(make_desk, "chat", model, max_sources=1)
    assert all(body.get("store") in (None, False) for _, body in model.seen)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("audit", [source_id_audit, both_forms_audit])
def test_an_auditor_naming_the_cited_source_backs_the_claim(
    make_desk: DeskFactory, protocol: Protocol, audit: Any
) -> None:
    receipt = run(make_desk, protocol, Model(protocol, {"audit": audit}))
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    [claim] = receipt.claims
    assert claim.citations == ("S1",)
    assert claim.auditor_verdict == Verdict.SUPPORTED
    s1 = next(s for s in receipt.sources if s.id == "S1")
    # "S1" is recorded as passages of S1 (never as the bare source id), the quoted one first.
    assert claim.evidence and set(claim.evidence) <= {p.id for p in s1.passages}
    quoted = next(p.id for p in s1.passages if "opened on October 26, 1825" in p.text)
    assert claim.evidence[0] == quoted


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_auditor_naming_only_an_uncited_source_backs_nothing(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"audit": uncited_source_audit})
    receipt = run(make_desk, protocol, model)
    audit_prompt = user_text(protocol, next(b for r, b in model.seen if r == "audit"))
    assert '<source id="S2"' in audit_prompt  # there was another source to name
    [claim] = receipt.claims
    assert claim.citations == ("S1",)
    assert claim.auditor_verdict == Verdict.UNSUPPORTED  # demoted: S2, S3 are not cited
    s1 = next(s for s in receipt.sources if s.id == "S1")
    assert claim.evidence and not set(claim.evidence) & {p.id for p in s1.passages}
    assert receipt.decision == Decision.HELD_FOR_REVIEW, receipt.reason
    assert "not supported by the sources" in receipt.reason
    assert receipt.published_answer == ""


# `DOCS["canal.md"]`'s first sentence, and the same in other words, every anchor kept.
CANAL = "The Erie Canal was opened on October 26, 1825, linking the Hudson River to Lake Erie."
PARAPHRASE = (
    "The Erie Canal, which opened on October 26, 1825, linked the Hudson River to Lake Erie."
)


def canal_source(p: Prompt) -> str:
    return next(sid for sid, passages in p.sources.items() if any(CANAL in t for _, t in passages))


def paraphrase_answer(p: Prompt) -> dict[str, Any]:
    return {"claims": [{"text": PARAPHRASE, "citations": [canal_source(p)], "quotes": []}]}


def resting_audit(*rests_on: str) -> Any:
    def audit(p: Prompt) -> dict[str, Any]:
        [(number, cites)] = p.claims
        verdict = {"claim": number, "verdict": "supported", "evidence": cites[:1]}
        return {"verdicts": [{**verdict, "rationale": "", "rests_on": list(rests_on)}]}

    return audit


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_words_a_supported_claim_rests_on_ground_a_paraphrase(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    # the second span is in no passage shown: it is dropped, not rested on
    audit = resting_audit(f" {CANAL} ", "The canal was sold to Britain in 1999.")
    model = Model(protocol, {"answer": paraphrase_answer, "audit": audit})
    with FakeProvider(protocol, model) as fake:
        desk = make_desk(protocol, fake.base_url)
        result = desk.ask(QUESTION).receipt
    receipt = Receipt.model_validate(result)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert receipt.policy.grounding == "paraphrase"
    [claim] = receipt.claims
    [sid] = claim.citations
    assert claim.auditor_verdict == Verdict.SUPPORTED and claim.audited_by == ""
    assert claim.spans == (CitedSpan(source_id=sid, text=CANAL),)
    assert claim.checks.tier == "paraphrase" and claim.checks.grounding == ()
    [rests] = claim.checks.rests_on
    assert rests.source_id == sid and rests.text in CANAL
    assert desk.verify_receipt(result).ok  # the tier re-derived from the recorded spans


def test_without_the_words_it_rests_on_a_paraphrase_is_held(make_desk: DeskFactory) -> None:
    model = Model("chat", {"answer": paraphrase_answer, "audit": resting_audit()})
    receipt = run(make_desk, "chat", model)
    [claim] = receipt.claims
    assert claim.auditor_verdict == Verdict.SUPPORTED and claim.spans == ()
    assert claim.checks.tier is None and claim.checks.grounding
    assert receipt.decision == Decision.HELD_FOR_REVIEW and receipt.published_answer == ""
