"""The answerer's spans through a run: stored with the draft, lent at the gate only where a
model auditor found a sentence supported and named none, and checked there like any span.

Stand-in agents and archive (as in `test_pipeline.py`); the sentence is the source's in other
words, which the grounding contract does not carry and the paraphrase tier does when it has
the source's words to rest on.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from evidence_desk.agents.base import Advice, ArchiveProfile, ClaimToAudit, ModelUsage, RunBudget
from evidence_desk.judgment import lend_rests
from evidence_desk.retrieval.coverage import ArchiveStats
from evidence_desk.runs.deps import PipelineConfig
from evidence_desk.runs.loop import drive
from evidence_desk.runs.pipeline import Pipeline
from evidence_desk.runs.selection import SelectionBounds
from evidence_desk.runs.stages import gate_stage
from evidence_desk.runs.state import RunState
from evidence_desk.trust.checks import CheckedClaim, EvidenceSource, check_draft
from evidence_desk.types import (
    CitedSpan,
    ClaimAudit,
    Decision,
    Document,
    Draft,
    GatePolicy,
    Hit,
    Passage,
    Plan,
    Receipt,
    ScoredPassage,
    SentenceRest,
    Source,
    SubQuestion,
    Verdict,
)

TEXT = (
    "The harbor of Boston was closed by Parliament in 1774. Congress met in Philadelphia "
    "that autumn. Trade with Britain stopped for a year."
)
WORDS = "The harbor of Boston was closed by Parliament in 1774"
PARAPHRASE = "Parliament closed Boston's harbor in 1774 [S1]."
REST = SentenceRest(text=PARAPHRASE, spans=(CitedSpan(source_id="S1", text=WORDS),))


class Archive:
    doc = Document(
        doc_id="d1",
        title="Letters, 1774",
        date="1774-10-01",
        url=None,
        content_sha256="0" * 64,
        ingested_at="2026-01-01T00:00:00Z",
        text=TEXT,
    )

    def search(self, query: str, windows: Sequence[object], k: int) -> list[Hit]:
        p = Passage(id="d1#0", doc_id="d1", text=TEXT, start=0, end=len(TEXT))
        return [Hit(passage=p, score=0.5, dense_score=0.8)]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        return {"d1": self.doc}

    def texts(self, pairs: object) -> dict[tuple[str, str], str]:
        return {("d1", self.doc.content_sha256): TEXT}

    def stats(self) -> ArchiveStats:
        return ArchiveStats(num_passages=100, doc_freq=lambda t: 10, docs_in_window=lambda w: 1)

    def profile(self) -> ArchiveProfile:
        return ArchiveProfile()


class Planner:
    engine_id = "test-planner"

    def plan(self, question: str, profile: ArchiveProfile, budget: RunBudget) -> Advice[Plan]:
        plan = Plan(
            subquestions=(SubQuestion(text=question),),
            queries=("boston harbor",),
            key_terms=("harbor",),
        )
        return Advice(plan, ModelUsage(self.engine_id))


class Answerer:
    engine_id = "test-answerer"

    def __init__(self, rests: tuple[SentenceRest, ...]) -> None:
        self.rests = rests

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        return Advice(Draft(text=PARAPHRASE, rests=self.rests), ModelUsage(self.engine_id))


class Auditor:
    """Says `verdict` of every claim, naming `spans`, as the engine `engine_id`."""

    def __init__(
        self, engine_id: str, verdict: Verdict = Verdict.SUPPORTED, spans: tuple[str, ...] = ()
    ) -> None:
        self.engine_id, self.verdict, self.spans = engine_id, verdict, spans

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        spans = tuple(CitedSpan(source_id="S1", text=t) for t in self.spans)
        audit = ClaimAudit(verdict=self.verdict, evidence=("d1#0",), spans=spans)
        return Advice([audit for _ in claims], ModelUsage(self.engine_id))


def pipeline(
    auditor: Auditor, rests: tuple[SentenceRest, ...] = (REST,), grounding: str = "paraphrase"
) -> Pipeline:
    policy = GatePolicy.model_validate({"coverage_floor": 0.3, "grounding": grounding})
    config = PipelineConfig(policy, SelectionBounds(4, 2), 0.02)
    return Pipeline(Archive(), Planner(), Answerer(rests), auditor, config)  # type: ignore[arg-type]


def ask(auditor: Auditor, rests: tuple[SentenceRest, ...] = (REST,)) -> Receipt:
    return pipeline(auditor, rests).run("What happened to Boston harbor?")


def test_a_model_auditors_support_rests_a_paraphrase_on_the_answerers_spans() -> None:
    receipt = ask(Auditor("anthropic:claude-haiku-4-5"))
    assert receipt.decision == Decision.AUTO_CLEARED, receipt.reason
    [claim] = receipt.claims
    assert claim.checks.tier == "paraphrase"
    assert claim.spans == REST.spans and claim.spans_by == "answerer"
    assert claim.audited_by == ""  # the verdict is still the run's auditor's
    [rested] = claim.checks.rests_on
    assert rested.source_id == "S1" and rested.text in WORDS


def test_a_strict_policy_publishes_no_paraphrase_on_the_answerers_spans() -> None:
    receipt = pipeline(Auditor("anthropic:claude-haiku-4-5"), grounding="strict").run("q")
    [claim] = receipt.claims
    assert claim.spans_by == "answerer" and claim.checks.tier is None  # recorded, not used
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def test_without_the_answerers_spans_the_same_sentence_is_held() -> None:
    receipt = ask(Auditor("anthropic:claude-haiku-4-5"), rests=())
    [claim] = receipt.claims
    assert claim.spans == () and claim.checks.tier is None
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def test_the_offline_auditors_support_never_takes_the_answerers_spans() -> None:
    receipt = ask(Auditor("offline"))
    [claim] = receipt.claims
    assert claim.spans == () and claim.spans_by == "" and claim.checks.tier is None
    assert receipt.decision == Decision.HELD_FOR_REVIEW


@pytest.mark.parametrize("verdict", [Verdict.PARTIAL, Verdict.UNSUPPORTED, Verdict.CONTRADICTED])
def test_a_verdict_short_of_supported_takes_no_spans(verdict: Verdict) -> None:
    receipt = ask(Auditor("openai:gpt-4.1-mini", verdict))
    [claim] = receipt.claims
    assert claim.spans == () and claim.checks.tier is None
    assert receipt.decision != Decision.AUTO_CLEARED


def test_an_auditor_that_names_its_own_spans_is_rested_on_them_alone() -> None:
    # Its span holds no "Parliament": the sentence gains a word the span lacks, and is held,
    # although the answerer's own spans would have carried it.
    receipt = ask(Auditor("openai:gpt-4.1-mini", spans=("The harbor of Boston was closed",)))
    [claim] = receipt.claims
    assert claim.spans == (CitedSpan(source_id="S1", text="The harbor of Boston was closed"),)
    assert claim.spans_by == "" and claim.checks.tier is None
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def test_an_answerers_span_its_source_lacks_grounds_nothing() -> None:
    lying = SentenceRest(
        text=PARAPHRASE,
        spans=(CitedSpan(source_id="S1", text="Parliament closed Boston's harbor in 1774"),),
    )
    receipt = ask(Auditor("anthropic:claude-haiku-4-5"), rests=(lying,))
    [claim] = receipt.claims
    assert claim.spans == lying.spans and claim.spans_by == "answerer"  # lent, then checked
    assert claim.checks.tier is None
    assert any("as a paraphrase" in g for g in claim.checks.grounding)
    assert receipt.decision == Decision.HELD_FOR_REVIEW


def gated(auditor: Auditor, audit_engine: str | None) -> RunState:
    """The run up to its audit, whose record names `audit_engine`, then its gate."""
    p = pipeline(auditor)
    deps = p.deps()
    state = drive(p.opening("What happened to Boston harbor?"), deps, until=("gate",))
    stages = tuple(
        s.model_copy(update={"engine": audit_engine}) if s.name == "audit" else s
        for s in state.stages
    )
    state = state.model_copy(update={"stages": stages})
    return state.model_copy(update=dict(gate_stage(state, deps).updates))


def test_the_gate_lends_by_the_engine_the_audit_stage_recorded() -> None:
    """A run resumed with another auditor set: the verdicts stored are the offline one's."""
    [claim] = gated(Auditor("anthropic:claude-haiku-4-5"), "offline").claims or ()
    assert claim.spans == () and claim.checks.tier is None
    [claim] = gated(Auditor("offline"), "anthropic:claude-haiku-4-5").claims or ()
    assert claim.spans_by == "answerer" and claim.checks.tier == "paraphrase"
    [claim] = gated(Auditor("anthropic:claude-haiku-4-5"), None).claims or ()
    assert claim.spans_by == "answerer"  # no engine recorded: the run's auditor's


def test_the_answer_stage_stores_the_rests_and_a_resumed_state_keeps_them() -> None:
    p = pipeline(Auditor("anthropic:claude-haiku-4-5"))
    state = drive(p.opening("What happened to Boston harbor?"), p.deps(), until=("verify",))
    assert state.draft_rests == (REST,)
    stored = state.output_of("answer")
    assert stored["draft_rests"] == [REST.model_dump(mode="json")]
    opening = {"run_id": state.run_id, "created_at": state.created_at, "question": "q"}
    outputs = [(state.output_of(s.name), s.model_dump(mode="json")) for s in state.stages]
    resumed = RunState.resumed(opening, outputs, "verify")
    assert resumed.draft_rests == (REST,)
    # A run stored before the answerer named spans has no such field: it resumes with none.
    old = [({k: v for k, v in o.items() if k != "draft_rests"}, r) for o, r in outputs]
    assert RunState.resumed(opening, old, "verify").draft_rests == ()


def checked(text: str) -> list[CheckedClaim]:
    evidence = {"S1": EvidenceSource.from_source(RUN_SOURCE, TEXT)}
    return check_draft(text, evidence)


RUN_SOURCE = Source(
    id="S1",
    doc_id="d1",
    title="Letters, 1774",
    retrieved_at="2026-01-01T00:00:00Z",
    content_sha256="0" * 64,
    passages=(ScoredPassage(id="d1#0", text=TEXT, start=0, end=len(TEXT), score=1.0),),
)


def test_a_sentence_takes_the_rest_of_its_own_text_whatever_its_markers() -> None:
    supported = ClaimAudit(verdict=Verdict.SUPPORTED)
    [renumbered] = checked("Parliament closed Boston's harbor in 1774 [S1, S2].")
    [lent] = lend_rests([renumbered], [supported], [REST], "openai:gpt-4.1-mini")
    assert lent.spans == REST.spans and lent.spans_by == "answerer"
    [other] = checked("Parliament closed the port in 1774 [S1].")
    assert lend_rests([other], [supported], [REST], "openai:gpt-4.1-mini") == [supported]


def test_a_verdict_from_outside_keeps_its_own_say() -> None:
    [claim] = checked(PARAPHRASE)
    outside = ClaimAudit(verdict=Verdict.SUPPORTED, by="newsroom fact-check")
    assert lend_rests([claim], [outside], [REST], "openai:gpt-4.1-mini") == [outside]
    assert lend_rests([claim], [outside.model_copy(update={"by": ""})], [REST], "offline") == [
        outside.model_copy(update={"by": ""})
    ]
