"""Whole runs with every role on a local server speaking a provider's protocol.

The official SDKs (through Pydantic AI) talk to `FakeProvider`; the scripted model answers
each role. Whatever the model says, the deterministic checks and the gate decide.
"""

from __future__ import annotations

import pytest
from provider_helpers import ENGINE, PROTOCOLS, DeskFactory
from scripts import Model, Prompt, first_sentence

from evidence_desk.agents.prices import PriceTable
from evidence_desk.testing.fakeproviders import FakeProvider, Protocol, Reply
from evidence_desk.types import Decision, Receipt, Verdict

QUESTION = "When was the Erie Canal opened?"


def ask(desk_factory: DeskFactory, protocol: Protocol, model: Model, **kw: object) -> Receipt:
    with FakeProvider(protocol, model) as fake:
        desk = desk_factory(protocol, fake.base_url, **kw)
        return Receipt.model_validate(desk.ask(QUESTION).receipt)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_faithful_model_is_published_and_the_receipt_names_it(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    model = Model(protocol)
    with FakeProvider(protocol, model) as fake:
        desk = make_desk(protocol, fake.base_url)
        result = desk.ask(QUESTION)
        receipt = Receipt.model_validate(result.receipt)
        assert desk.verify_receipt(result.receipt).ok
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    assert 'The source says "The Erie Canal was opened on October 26, 1825' in (
        receipt.published_answer
    )
    engine = ENGINE[protocol]
    assert receipt.engine.model_dump() == {"planner": engine, "answerer": engine, "auditor": engine}
    stages = {s.name: s for s in receipt.stages}
    prices = PriceTable.load()
    for name in ("plan", "answer", "audit"):
        stage = stages[name]
        assert (stage.engine, stage.calls) == (engine, 1)
        assert stage.input_tokens > 100 and stage.output_tokens > 5
        expected = prices.spend(engine, stage.input_tokens, stage.output_tokens)
        assert stage.estimated_spend_usd == pytest.approx(expected, abs=1e-6)
        assert stage.latency_ms > 0 and stage.error is None
    assert receipt.usage.model_calls == 3 == len(fake.requests)
    assert receipt.usage.input_tokens == sum(stages[n].input_tokens for n in stages)
    assert receipt.usage.estimated_spend_usd > 0
    assert [role for role, _ in model.seen] == ["plan", "answer", "audit"]


def test_an_openai_compatible_server_is_reached_through_its_base_url(
    make_desk: DeskFactory,
) -> None:
    model = Model("chat")
    with FakeProvider("chat", model, models=["llama3.1:8b"]) as fake:
        desk = make_desk("chat", "", model=f"openai-compatible:llama3.1:8b@{fake.base_url}")
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
        assert {r.body["model"] for r in fake.requests} == {"llama3.1:8b"}
    assert receipt.decision == Decision.AUTO_CLEARED
    assert receipt.engine.answerer == "openai-compatible:llama3.1:8b"
    assert receipt.usage.estimated_spend_usd == 0.0  # self-hosted: priced at zero


def test_roles_can_use_different_engines(make_desk: DeskFactory) -> None:
    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        desk = make_desk("chat", fake.base_url, planner="offline", auditor="offline")
        receipt = Receipt.model_validate(desk.ask(QUESTION).receipt)
    assert receipt.engine.model_dump() == {
        "planner": "offline",
        "answerer": "openai:gpt-4.1-mini",
        "auditor": "offline",
    }
    assert [role for role, _ in model.seen] == ["answer"]
    stages = {s.name: s for s in receipt.stages}
    assert stages["plan"].input_tokens == 0 and stages["plan"].engine == "offline"
    assert stages["answer"].input_tokens > 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_fabricated_quote_is_held_whatever_the_auditor_says(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def fabricate(p: Prompt) -> dict[str, object]:
        sid, passages = next(iter(p.sources.items()))
        real = first_sentence(passages[0][1]).rstrip(".")
        fake_quote = real.replace("1825", "1824")
        return {"claims": [{"text": f'It says "{fake_quote}".', "citations": [sid]}]}

    receipt = ask(make_desk, protocol, Model(protocol, {"answer": fabricate}))
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.published_answer == ""
    assert [q.verbatim for q in receipt.quotes] == [False]
    assert receipt.claims[0].auditor_verdict == Verdict.SUPPORTED  # the model was fooled
    assert receipt.claims[0].verdict == Verdict.UNSUPPORTED  # the checks were not
    assert "not word for word" in receipt.reason


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_citation_to_a_source_that_does_not_exist_is_held(
    make_desk: DeskFactory, protocol: Protocol
) -> None:
    def cite_missing(p: Prompt) -> dict[str, object]:
        return {"claims": [{"text": "The canal opened in 1825.", "citations": ["S9"]}]}

    receipt = ask(make_desk, protocol, Model(protocol, {"answer": cite_missing}))
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.claims[0].checks.unknown_citations == ("S9",)
    assert "source that does not exist" in receipt.reason


def test_a_model_auditor_cannot_rescue_a_claim_whose_number_is_wrong(
    make_desk: DeskFactory,
) -> None:
    def two_claims(p: Prompt) -> dict[str, object]:
        sid, passages = next(iter(p.sources.items()))
        real = first_sentence(passages[0][1]).rstrip(".")
        return {
            "claims": [
                {"text": f'The source says "{real}".', "citations": [sid]},
                {"text": "The canal cut freight costs by 45 percent.", "citations": [sid]},
            ]
        }

    receipt = ask(make_desk, "chat", Model("chat", {"answer": two_claims}))
    assert [c.auditor_verdict for c in receipt.claims] == [Verdict.SUPPORTED] * 2
    assert [c.verdict for c in receipt.claims] == [Verdict.SUPPORTED, Verdict.UNSUPPORTED]
    assert receipt.decision == Decision.PUBLISHED_AFTER_PRUNING
    assert "45 percent" not in receipt.published_answer


def test_a_stricter_model_auditor_is_obeyed(make_desk: DeskFactory) -> None:
    def doubt(p: Prompt) -> dict[str, object]:
        return {
            "verdicts": [
                {"claim": n, "verdict": "contradicted", "evidence": [], "rationale": "no"}
                for n, _ in p.claims
            ]
        }

    receipt = ask(make_desk, "chat", Model("chat", {"audit": doubt}))
    assert receipt.decision == Decision.HELD_FOR_REVIEW
    assert receipt.claims[0].checks.passed  # the checks alone would have published it


def test_an_auditor_citing_unknown_passages_does_not_support_anything(
    make_desk: DeskFactory,
) -> None:
    def invent(p: Prompt) -> dict[str, object]:
        return {
            "verdicts": [
                {"claim": n, "verdict": "supported", "evidence": ["made-up#1"], "rationale": ""}
                for n, _ in p.claims
            ]
        }

    receipt = ask(make_desk, "chat", Model("chat", {"audit": invent}))
    assert receipt.claims[0].auditor_verdict == Verdict.UNSUPPORTED
    assert receipt.claims[0].evidence == ()
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def test_a_tool_call_to_a_tool_never_offered_is_refused_and_retried(
    make_desk: DeskFactory,
) -> None:
    model = Model("chat", {"answer": [Reply.tool_call("search_web", {"q": "canal"})]})
    receipt = ask(make_desk, "chat", model)
    assert model.calls("answer") == 2
    assert receipt.decision == Decision.AUTO_CLEARED
    assert {s.name: s.calls for s in receipt.stages}["answer"] == 2
    retry = model.seen[2][1]["messages"]
    assert any("search_web" in str(m) for m in retry)  # the model is told the tool is unknown


def test_a_model_planner_cannot_drop_a_period_the_question_states(
    make_desk: DeskFactory,
) -> None:
    # The scripted planner returns no time window at all; code reads "in 1950" and the
    # archive holds nothing from 1950, so the run stops outside coverage, unanswered.
    model = Model("chat")
    with FakeProvider("chat", model) as fake:
        desk = make_desk("chat", fake.base_url)
        receipt = Receipt.model_validate(
            desk.ask("What happened to the Erie Canal in 1950?").receipt
        )
    assert [role for role, _ in model.seen] == ["plan"]
    assert receipt.decision == Decision.OUTSIDE_COVERAGE
    assert [(w.start, w.end) for w in receipt.plan.time_windows] == [("1950-01-01", "1950-12-31")]
    assert receipt.plan.queries == ("What happened to the Erie Canal in 1950?",)  # the model's
