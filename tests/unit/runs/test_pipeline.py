"""The pipeline with stand-in agents and archive: the gate decides whatever the agents say."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from evidence_desk.agents.base import (
    Advice,
    AgentFailure,
    ArchiveProfile,
    ClaimToAudit,
    ModelUsage,
    RunBudget,
)
from evidence_desk.retrieval.coverage import ArchiveStats
from evidence_desk.runs.deps import PipelineConfig
from evidence_desk.runs.pipeline import Pipeline
from evidence_desk.runs.selection import SelectionBounds
from evidence_desk.types import (
    ClaimAudit,
    Decision,
    Document,
    Draft,
    GatePolicy,
    Hit,
    Passage,
    Plan,
    Receipt,
    Source,
    SubQuestion,
    TimeWindow,
    Verdict,
)

TEXT = (
    "The harbor of Boston was closed in 1774. Congress met in Philadelphia that autumn. "
    "Trade with Britain stopped for a year."
)


class Archive:
    def __init__(self, docs_in_window: int = 1) -> None:
        self.doc = Document(
            doc_id="d1",
            title="Letters, 1774",
            date="1774-10-01",
            url=None,
            content_sha256="0" * 64,
            ingested_at="2026-01-01T00:00:00Z",
            text=TEXT,
        )
        self._docs_in_window = docs_in_window
        self.searches: list[tuple[str, tuple[TimeWindow, ...]]] = []

    def search(self, query: str, windows: Sequence[TimeWindow], k: int) -> list[Hit]:
        self.searches.append((query, tuple(windows)))
        p = Passage(id="d1#0", doc_id="d1", text=TEXT, start=0, end=len(TEXT))
        return [Hit(passage=p, score=0.5, dense_score=0.8)]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        return {"d1": self.doc}

    def stats(self) -> ArchiveStats:
        return ArchiveStats(
            num_passages=100, doc_freq=lambda t: 10, docs_in_window=lambda w: self._docs_in_window
        )

    def profile(self) -> ArchiveProfile:
        return ArchiveProfile()


class Planner:
    engine_id = "test-planner"

    def __init__(self, windows: tuple[TimeWindow, ...] = ()) -> None:
        self.windows = windows

    def plan(self, question: str, profile: ArchiveProfile, budget: RunBudget) -> Advice[Plan]:
        plan = Plan(
            subquestions=(SubQuestion(text=question),),
            time_windows=self.windows,
            queries=("boston harbor",),
            key_terms=("harbor",),
        )
        return Advice(plan, ModelUsage("test-planner", calls=1, input_tokens=100))


class Answerer:
    engine_id = "test-answerer"

    def __init__(self, text: str) -> None:
        self.text = text

    def answer(
        self, question: str, plan: Plan, sources: Sequence[Source], budget: RunBudget
    ) -> Advice[Draft]:
        usage = ModelUsage("test-answerer", calls=1, input_tokens=1000, output_tokens=50)
        return Advice(Draft(text=self.text), usage)


class Auditor:
    engine_id = "test-auditor"

    def __init__(self, verdicts: Sequence[Verdict]) -> None:
        self.verdicts = verdicts

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        audits = [
            ClaimAudit(verdict=v, evidence=("d1#0",))
            for v, _ in zip(self.verdicts, claims, strict=False)
        ]
        return Advice(audits, ModelUsage("test-auditor", calls=2, spend_usd=None))


class Failing:
    """A role whose model gave up, after spending one call."""

    engine_id = "test-failing"

    def _fail(self, *args: object) -> Advice[object]:
        usage = ModelUsage("test-failing", calls=3, input_tokens=7, spend_usd=0.25)
        raise AgentFailure("role", "The role failed: the provider had a server error.", usage)

    plan = answer = audit = _fail


def run(
    answer: str, *verdicts: Verdict, docs_in_window: int = 1, failing: str | None = None
) -> Receipt:
    windows = (TimeWindow(start="1774-01-01", end="1774-12-31", label="1774"),)
    agents: list[object] = [
        Planner(windows),
        Answerer(answer),
        Auditor(verdicts or [Verdict.SUPPORTED] * 10),
    ]
    if failing is not None:
        agents[["plan", "answer", "audit"].index(failing)] = Failing()
    pipeline = Pipeline(
        Archive(docs_in_window),
        *agents,  # type: ignore[arg-type]
        PipelineConfig(GatePolicy(coverage_floor=0.3), SelectionBounds(4, 2), 0.02),
    )
    return pipeline.run("What happened to Boston harbor in 1774?")


GOOD = 'The source says "The harbor of Boston was closed in 1774." [S1]'


def test_a_grounded_draft_is_auto_cleared_with_stages_timed() -> None:
    r = run(GOOD)
    assert r.decision == Decision.AUTO_CLEARED
    assert r.published_answer == GOOD
    names = [s.name for s in r.stages]
    assert names == ["plan", "retrieve", "select", "coverage", "answer", "verify", "audit", "gate"]
    assert r.engine.answerer == "test-answerer"
    assert r.sources[0].passages[0].score > 0


@pytest.mark.parametrize(
    "draft",
    [
        'The letters say "The harbour of Boston was closed in 1774." [S1]',  # altered quote
        'The letters say "The harbor of Boston was closed in 1774." [S2]',  # unknown source
        'The letters say "The harbor of Boston was closed in 1775." [S1]',  # changed number
    ],
)
def test_a_fabricated_quote_or_citation_is_held(draft: str) -> None:
    r = run(draft)
    assert r.decision == Decision.HELD_FOR_REVIEW
    assert r.published_answer == ""


def test_the_auditor_can_only_make_the_gate_stricter() -> None:
    held = run(GOOD, Verdict.CONTRADICTED)
    assert held.decision == Decision.HELD_FOR_REVIEW
    pruned = run(
        GOOD + " Trade with Britain grew for a decade [S1].", Verdict.SUPPORTED, Verdict.UNSUPPORTED
    )
    assert pruned.decision == Decision.PUBLISHED_AFTER_PRUNING
    assert pruned.published_answer == GOOD


def test_an_empty_window_ends_outside_coverage_without_answering() -> None:
    r = run(GOOD, docs_in_window=0)
    assert r.decision == Decision.OUTSIDE_COVERAGE
    assert "answer" not in [s.name for s in r.stages]
    assert r.draft == "" and r.claims == []


def test_each_agent_stage_records_its_engine_calls_tokens_and_spend() -> None:
    r = run(GOOD)
    by_name = {s.name: s for s in r.stages}
    assert (by_name["plan"].engine, by_name["plan"].calls) == ("test-planner", 1)
    assert (by_name["answer"].input_tokens, by_name["answer"].output_tokens) == (1000, 50)
    assert by_name["audit"].estimated_spend_usd is None  # no price for this engine
    assert by_name["retrieve"].engine is None and by_name["retrieve"].calls == 0
    assert r.usage.model_calls == 4
    assert r.usage.input_tokens == 1100 and r.usage.output_tokens == 50
    assert r.usage.unpriced_engines == ("test-auditor",)
    assert r.failure is None


@pytest.mark.parametrize("stage", ["plan", "answer", "audit"])
def test_a_failed_agent_stage_ends_the_run_held_with_its_reason(stage: str) -> None:
    r = run(GOOD, failing=stage)
    assert r.decision == Decision.HELD_FOR_REVIEW
    assert r.published_answer == ""
    assert r.failure is not None and r.failure.stage == stage
    assert "server error" in r.failure.reason and "server error" in r.reason
    assert "Nothing was published" in r.reason
    failed = [s for s in r.stages if s.error]
    assert [s.name for s in failed] == [stage]
    assert failed[0].calls == 3 and failed[0].estimated_spend_usd == 0.25
    names = [s.name for s in r.stages]
    assert names[names.index(stage) + 1 :] == ["gate"]  # no stage after it but the gate
    assert not any(c.kept for c in r.claims)


def test_a_failed_planner_searches_nothing() -> None:
    r = run(GOOD, failing="plan")
    assert r.sources == [] and r.coverage is None and r.claims == []
    assert r.plan.subquestions[0].text == "What happened to Boston harbor in 1774?"


def test_a_failed_auditor_leaves_every_claim_unsupported() -> None:
    r = run(GOOD, failing="audit")
    assert r.draft == GOOD
    assert [c.auditor_verdict for c in r.claims] == [Verdict.UNSUPPORTED]
