"""A receipt whose claim the paraphrase tier grounded re-derives from its own content.

`consistency_problems` re-runs the paraphrase tier on the spans each supported claim records
(under a policy that allows it), so a receipt judged by `judgment.judge` is consistent, and
one whose recorded tier, stretches or policy were changed afterwards is not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from evidence_desk.agents.base import Advice, ClaimToAudit, ModelUsage, RunBudget
from evidence_desk.judgment import judge
from evidence_desk.trust.consistency import consistency_problems
from evidence_desk.types import (
    CitedSpan,
    ClaimAudit,
    EngineIds,
    GatePolicy,
    Plan,
    Receipt,
    ScoredPassage,
    Source,
    Usage,
    Verdict,
)

TEXT = (
    "In like fashion from 1815 to 1914 no single war in Europe or in Asia constituted a real "
    "threat against our future. The first is freedom of speech and expression."
)
SPAN = (
    "from 1815 to 1914 no single war in Europe or in Asia constituted a real threat against "
    "our future."
)
DRAFT = (
    "From 1815 to 1914, no single war in Europe or in Asia was a real threat to our future [S1]."
)
POLICY = GatePolicy(coverage_floor=0.0, grounding="paraphrase")
TIER_PROBLEM = "Claim 1's tier or the words it rests on do not match when re-checked."

SOURCE = Source(
    id="S1",
    doc_id="1941-Roosevelt-1",
    title="Franklin D. Roosevelt: annual message, 1941",
    date="1941-01-06",
    names=("Franklin D. Roosevelt",),
    offices=("President",),
    retrieved_at="2026-01-01T00:00:00Z",
    content_sha256=hashlib.sha256(TEXT.encode("utf-8")).hexdigest(),
    passages=(
        ScoredPassage(id="1941-Roosevelt-1#0", text=TEXT, start=0, end=len(TEXT), score=1.0),
    ),
)


class SpanAuditor:
    """Finds every claim supported, resting on `SPAN` of S1."""

    engine_id = "test-span-auditor"

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        audit = ClaimAudit(
            verdict=Verdict.SUPPORTED,
            evidence=("1941-Roosevelt-1#0",),
            spans=(CitedSpan(source_id="S1", text=SPAN),),
        )
        return Advice([audit for _ in claims], ModelUsage(self.engine_id))


def receipt(policy: GatePolicy = POLICY) -> dict[str, Any]:
    judged = judge(
        DRAFT, "What did Roosevelt say?", [SOURCE], {"S1": TEXT}, SpanAuditor(),
        RunBudget(10, 10_000), None, policy,
    )  # fmt: skip
    claims, outcome = judged.claims, judged.outcome
    return Receipt(
        run_id="run-1",
        created_at="2026-01-01T00:00:00Z",
        question="What did Roosevelt say?",
        plan=Plan(subquestions=(), queries=("roosevelt war",)),
        sources=[SOURCE],
        draft=DRAFT,
        claims=list(claims),
        quotes=[q for c in claims for q in c.quotes],
        decision=outcome.decision,
        reason=outcome.reason,
        published_answer=outcome.published_answer,
        engine=EngineIds(planner="offline", answerer="offline", auditor=SpanAuditor.engine_id),
        policy=policy,
        stages=[],
        usage=Usage(),
    ).model_dump(mode="json")


def problems(recorded: dict[str, Any]) -> list[str]:
    return consistency_problems(Receipt.model_validate(recorded))


@pytest.fixture
def paraphrased() -> dict[str, Any]:
    recorded = receipt()
    assert recorded["decision"] == "AUTO_CLEARED", recorded["reason"]
    [claim] = recorded["claims"]
    assert claim["checks"]["tier"] == "paraphrase" and claim["kept"]
    [rests] = claim["checks"]["rests_on"]
    assert TEXT[rests["start"] : rests["end"]] == rests["text"]
    assert claim["spans"] == [{"source_id": "S1", "text": SPAN}]
    return recorded


def test_a_paraphrase_grounded_receipt_is_consistent(paraphrased: dict[str, Any]) -> None:
    assert problems(paraphrased) == []


def test_the_same_draft_under_a_strict_policy_is_held_and_consistent() -> None:
    strict = receipt(GatePolicy(coverage_floor=0.0, grounding="strict"))
    assert strict["decision"] == "HELD_FOR_REVIEW"
    assert strict["claims"][0]["checks"]["tier"] is None
    assert problems(strict) == []


def test_a_tampered_stretch_is_caught(paraphrased: dict[str, Any]) -> None:
    [rests] = paraphrased["claims"][0]["checks"]["rests_on"]
    rests["start"] += 5
    rests["text"] = TEXT[rests["start"] : rests["end"]]
    assert problems(paraphrased) == [TIER_PROBLEM]


def test_a_tampered_tier_is_caught(paraphrased: dict[str, Any]) -> None:
    paraphrased["claims"][0]["checks"]["tier"] = "extractive"
    assert problems(paraphrased) == [TIER_PROBLEM]


NOT_CARRIED = (
    "Claim 1's grounding check does not match its recorded passages (not carried when re-checked)."
)


def test_a_tampered_span_is_caught(paraphrased: dict[str, Any]) -> None:
    # a span the source does not hold: the tier no longer grounds the sentence
    paraphrased["claims"][0]["spans"][0]["text"] = SPAN.replace("no single", "a single")
    assert problems(paraphrased) == [NOT_CARRIED]


def test_a_recorded_policy_changed_to_strict_is_caught(paraphrased: dict[str, Any]) -> None:
    paraphrased["policy"]["grounding"] = "strict"
    assert problems(paraphrased) == [NOT_CARRIED]


def test_a_supported_verdict_is_what_lets_its_spans_count(paraphrased: dict[str, Any]) -> None:
    # a partial verdict's spans are never rested on: the sentence is not carried, and the
    # recorded verdict no longer follows either
    paraphrased["claims"][0]["auditor_verdict"] = "partial"
    assert problems(paraphrased) == [
        NOT_CARRIED,
        "Claim 1's verdict does not follow from the auditor and the checks.",
    ]
