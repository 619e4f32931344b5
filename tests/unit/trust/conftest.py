"""A small, realistic run for the trust tests: two source documents, a draft, a receipt."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.gate import decide
from evidence_desk.types import (
    ClaimAudit,
    Coverage,
    EngineIds,
    GatePolicy,
    Plan,
    Receipt,
    ScoredPassage,
    Source,
    Usage,
    Verdict,
)

DOC_1933 = (
    "So, first of all, let me assert my firm belief that the only thing we have to fear is\n"
    "fear itself. Our greatest primary task is to put people to work. In 1933 more than\n"
    "13,000,000 workers were idle, about 25 percent of the labor force."
)
DOC_1941 = (
    "In the future days, which we seek to make secure, we look forward to a world founded "
    "upon four essential human freedoms. The first is freedom of speech and expression."
)
DOCUMENTS = {"1933-Roosevelt-1": DOC_1933, "1941-Roosevelt-1": DOC_1941}
GOOD_DRAFT = (
    'Roosevelt said "the only thing we have to fear is fear itself." [S1] '
    "In 1933 more than 13,000,000 workers were idle [S1]. "
    'Roosevelt said we look forward to a world founded upon "four essential human freedoms" '
    "[S2]."
)


def _source(sid: str, doc_id: str, text: str, date: str) -> Source:
    return Source(
        id=sid,
        doc_id=doc_id,
        title=f"Address {doc_id}",
        date=date,
        names=("Franklin D. Roosevelt",),
        retrieved_at="2024-01-01T00:00:00Z",
        content_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        passages=(ScoredPassage(id=f"{doc_id}#0", text=text, start=0, end=len(text), score=0.9),),
    )


SOURCES = (
    _source("S1", "1933-Roosevelt-1", DOC_1933, "1933-03-04"),
    _source("S2", "1941-Roosevelt-1", DOC_1941, "1941-01-06"),
)


def evidence(
    sources: Sequence[Source] = SOURCES, documents: dict[str, str] = DOCUMENTS
) -> dict[str, EvidenceSource]:
    return {s.id: EvidenceSource.from_source(s, documents[s.doc_id]) for s in sources}


def build_receipt(
    draft: str = GOOD_DRAFT,
    verdicts: Sequence[Verdict] | None = None,
    coverage: Coverage | None = None,
    policy: GatePolicy | None = None,
    sources: Sequence[Source] = SOURCES,
    documents: dict[str, str] = DOCUMENTS,
) -> dict[str, Any]:
    """An unsealed receipt whose decision follows from the draft, verdicts and policy
    (over the two Roosevelt addresses unless other sources and their texts are given)."""
    checked = check_draft(draft, evidence(sources, documents))
    chosen = verdicts or [Verdict.SUPPORTED] * len(checked)
    audits = [ClaimAudit(verdict=v) for v in chosen]
    gate_policy = policy or GatePolicy(coverage_floor=0.4)
    claims, outcome = decide(checked, audits, coverage, gate_policy)
    receipt = Receipt(
        run_id="run-1",
        created_at="2024-01-01T00:00:00Z",
        question="What did Roosevelt say about fear?",
        plan=Plan(subquestions=(), queries=("roosevelt fear",)),
        sources=list(sources),
        draft=draft,
        claims=claims,
        quotes=[q for c in claims for q in c.quotes],
        decision=outcome.decision,
        reason=outcome.reason,
        published_answer=outcome.published_answer,
        engine=EngineIds(planner="offline", answerer="offline", auditor="offline"),
        policy=gate_policy,
        coverage=coverage,
        stages=[],
        usage=Usage(),
    )
    return receipt.model_dump(mode="json")


@pytest.fixture(scope="session")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture
def make_receipt() -> Callable[..., dict[str, Any]]:
    return build_receipt


@pytest.fixture
def documents() -> dict[str, str]:
    return dict(DOCUMENTS)


@pytest.fixture
def sources() -> dict[str, EvidenceSource]:
    return evidence()
