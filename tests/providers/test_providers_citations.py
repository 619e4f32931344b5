"""The words an answerer says a sentence rests on, against local provider servers.

* An Anthropic answerer in `auto` mode asks with its passages as the Messages API's search
  results, citations enabled and no tool; the fake server answers with text blocks whose
  `search_result_location` citations name the sentences used. Each citation's sentences are
  the spans the sentence rests on, with the source of the result it names.
* On every provider, the output tool's `rests_on` does the same.
* Those spans count only where a model auditor found the sentence supported and named none
  of its own; the offline auditor never lends them, and a span its passage lacks (a server
  that cites what the source does not say) rests the sentence on nothing: the checks and
  the paraphrase tier decide, as for any span.
* A run killed after its answer is stored, or after the answer's reply is recorded, resumes
  with the same spans and asks the answerer nothing again.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from provider_helpers import PROTOCOLS, DeskFactory
from scripts import Model, Prompt

from evidence_desk.runs.state import RunState
from evidence_desk.testing.fakebodies import Cite, CitedText
from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import CitedSpan, Decision, Receipt, Verdict

QUESTION = "When was the Erie Canal opened?"
# `DOCS["canal.md"]`'s first sentence, and the same in other words, every anchor kept.
CANAL = "The Erie Canal was opened on October 26, 1825, linking the Hudson River to Lake Erie."
PARAPHRASE = (
    "The Erie Canal, which opened on October 26, 1825, linked the Hudson River to Lake Erie."
)


def canal_result(p: Prompt) -> int:
    """The index of the search result whose first sentence is `CANAL`."""
    return next(i for i, r in enumerate(p.results) if r.texts[0] == CANAL)


def cited_paraphrase(**cite: Any) -> Any:
    def answer(p: Prompt) -> Reply:
        return Reply.cited_text(CitedText(PARAPHRASE, (Cite(canal_result(p), **cite),)))

    return answer


def supporting_audit(p: Prompt) -> dict[str, Any]:
    """Supported, with the cited source as evidence and no words of its own to rest on."""
    verdicts = [
        {"claim": n, "verdict": "supported", "evidence": cites[:1], "rationale": "", "rests_on": []}
        for n, cites in p.claims
    ]
    return {"verdicts": verdicts}


def ask(make_desk: DeskFactory, model: Model, **kw: Any) -> tuple[Receipt, bool]:
    protocol = model.protocol
    with FakeProvider(protocol, model, validate=True) as fake:
        desk = make_desk(protocol, fake.base_url, **kw)
        result = desk.ask(QUESTION)
        verified = desk.verify_receipt(result.receipt).ok
    assert fake.rejected == []  # every request is one the real API accepts
    return Receipt.model_validate(result.receipt), verified


def canal_id(receipt: Receipt) -> str:
    return next(s.id for s in receipt.sources if any(CANAL in p.text for p in s.passages))


def test_the_anthropic_answerer_sends_every_passage_as_a_cited_search_result(
    make_desk: DeskFactory,
) -> None:
    model = Model("anthropic")
    receipt, _ = ask(make_desk, model)
    [body] = [b for role, b in model.seen if role == "answer"]
    assert "tools" not in body and "tool_choice" not in body and "output_config" not in body
    [message] = body["messages"]
    results = [b for b in message["content"] if b["type"] == "search_result"]
    passages = [(s.id, p.text) for s in receipt.sources for p in s.passages]
    assert len(receipt.sources) > 1 and len(results) == len(passages)
    for result, (sid, text) in zip(results, passages, strict=True):
        assert result["source"] == sid and result["citations"] == {"enabled": True}
        sentences = [b["text"] for b in result["content"]]
        assert all(b["type"] == "text" for b in result["content"]) and len(sentences) > 1
        assert "".join(sentences).replace(" ", "") == "".join(text.split())
    source = next(s for s in receipt.sources if s.id == results[0]["source"])
    assert results[0]["title"] == f"{source.title} ({source.date})"


def test_a_paraphrase_resting_on_its_citations_is_published_as_one(
    make_desk: DeskFactory,
) -> None:
    model = Model("anthropic", {"answer": cited_paraphrase(), "audit": supporting_audit})
    receipt, verified = ask(make_desk, model)
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    [claim] = receipt.claims
    sid = canal_id(receipt)
    assert claim.text == PARAPHRASE.removesuffix(".") + f" [{sid}]."
    assert claim.citations == (sid,)  # the cited result's source, by its index
    assert claim.auditor_verdict == Verdict.SUPPORTED and claim.audited_by == ""
    assert claim.spans == (CitedSpan(source_id=sid, text=CANAL),)
    assert claim.spans_by == "answerer"  # the answerer's, lent: the auditor named none
    assert claim.checks.tier == "paraphrase" and claim.checks.grounding == ()
    [rests] = claim.checks.rests_on
    assert rests.source_id == sid and rests.text in CANAL
    assert verified  # `receipt verify` re-derives the tier from the recorded spans


def test_the_offline_auditor_rests_a_paraphrase_on_its_own_span_not_the_answerers(
    make_desk: DeskFactory,
) -> None:
    model = Model("anthropic", {"answer": cited_paraphrase()})
    receipt, verified = ask(make_desk, model, auditor="offline")
    assert [role for role, _ in model.seen] == ["plan", "answer"]
    [claim] = receipt.claims
    sid = canal_id(receipt)
    # its own cover sentence (`spans_by` empty), never the answerer's spans lent to it
    assert claim.spans == (CitedSpan(source_id=sid, text=CANAL),) and claim.spans_by == ""
    assert claim.auditor_verdict == Verdict.SUPPORTED and claim.checks.tier == "paraphrase"
    assert receipt.decision == Decision.AUTO_CLEARED
    assert verified


def test_a_server_citing_words_its_passage_lacks_rests_the_sentence_on_nothing(
    make_desk: DeskFactory,
) -> None:
    # The citation names the right result, but says it holds what the source never says.
    lie = "The Erie Canal was opened on October 26, 1826, linking the Hudson River to Lake Erie."
    model = Model(
        "anthropic", {"answer": cited_paraphrase(cited_text=lie), "audit": supporting_audit}
    )
    receipt, _ = ask(make_desk, model)
    [claim] = receipt.claims
    assert claim.citations == (canal_id(receipt),)  # still cited: the index is the source's
    assert claim.spans == () and claim.checks.tier is None and claim.checks.grounding
    assert receipt.decision == Decision.HELD_FOR_REVIEW and receipt.published_answer == ""


def test_a_citation_whose_source_is_not_its_results_backs_nothing(
    make_desk: DeskFactory,
) -> None:
    model = Model("anthropic", {"answer": cited_paraphrase(source="S9"), "audit": supporting_audit})
    receipt, _ = ask(make_desk, model)
    [claim] = receipt.claims
    assert claim.citations == () and not claim.checks.has_citation
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def tool_paraphrase(p: Prompt) -> dict[str, Any]:
    sid = next(s for s, ps in p.sources.items() if any(CANAL in t for _, t in ps))
    return {"claims": [{"text": PARAPHRASE, "citations": [sid], "quotes": [], "rests_on": [CANAL]}]}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_output_tools_rests_on_ground_a_paraphrase_on_every_provider(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol, {"answer": tool_paraphrase, "audit": supporting_audit})
    receipt, verified = ask(make_desk, model, model_output_mode="tool")
    [body] = [b for role, b in model.seen if role == "answer"]
    [tool] = body["tools"]
    schema = (tool.get("function") or tool).get("parameters") or tool["input_schema"]
    claim_schema = schema["$defs"]["ClaimOut"]
    assert "rests_on" in claim_schema["required"]  # every field required, as `_Out` makes them
    assert claim_schema["properties"]["rests_on"]["type"] == "array"
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    [claim] = receipt.claims
    assert claim.spans == (CitedSpan(source_id=canal_id(receipt), text=CANAL),)
    assert claim.spans_by == "answerer" and claim.checks.tier == "paraphrase"
    assert verified


class Crash(Exception):
    """Stands in for the process dying."""


@pytest.fixture
def own_home(archive_home: Path, tmp_path: Path) -> Path:
    """A copy of the provider archive, so an interrupted run stays in this test's records."""
    copy = tmp_path / "home"
    shutil.copytree(archive_home, copy)
    return copy


@pytest.mark.parametrize("point", ["answer_stored", "answer_recorded"])
def test_a_run_resumed_after_its_answer_keeps_the_answerers_spans(
    make_desk: DeskFactory, own_home: Path, point: str
) -> None:
    model = Model("anthropic", {"answer": cited_paraphrase(), "audit": supporting_audit})
    with FakeProvider("anthropic", model) as fake:
        first = make_desk("anthropic", fake.base_url, home=own_home)

        def stored(kind: str, stage: str, state: RunState) -> None:
            if (kind, stage) == ("stage_stored", "answer"):
                assert state.draft_rests  # what the records now hold
                raise Crash

        def recorded(key: str) -> None:
            if key.startswith("answerer"):
                raise Crash

        if point == "answer_recorded":
            first.executor.on_call_recorded = recorded
        with pytest.raises(Crash):
            first.ask(QUESTION, on_event=stored if point == "answer_stored" else None)
        (run,) = first.runs("running")
        second = make_desk("anthropic", fake.base_url, home=own_home)
        second.executor.owner = first.executor.owner  # the same worker, restarted
        result = second.resume(run.run_id)
        assert second.verify_receipt(result.receipt).ok
    receipt = Receipt.model_validate(result.receipt)
    assert model.calls("answer") == 1  # the stored answer, or the recorded reply, reused
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    [claim] = receipt.claims
    assert claim.spans_by == "answerer" and claim.checks.tier == "paraphrase"
    assert second.run_record(run.run_id)["ledger"]["requests"] == 3
