"""The offline engine end to end with the real embedding model (all-MiniLM-L6-v2)."""

from __future__ import annotations

import pytest
from agents_helpers import profile, sotu_sources

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.offline import OfflineAnswerer, OfflineAuditor, OfflinePlanner
from evidence_desk.agents.registry import shared_cache
from evidence_desk.retrieval.embedder import Embedder, MiniLMEmbedder
from evidence_desk.trust.claims import split_claims
from evidence_desk.types import Verdict

pytestmark = pytest.mark.torch  # loads the embedding model


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return shared_cache(MiniLMEmbedder())


def test_four_freedoms_answer_is_found_and_supported(embedder: Embedder) -> None:
    question = "What did Franklin D. Roosevelt say about freedom of speech in 1941?"
    sources = sotu_sources(["1941-Roosevelt-1"], question)
    plan = OfflinePlanner().plan(question, profile())
    draft = OfflineAnswerer(embedder).answer(question, plan, sources).text
    assert '"The first is freedom of speech and expression—everywhere in the world" [S1].' in draft
    claims = [ClaimToAudit(c.text, c.citations) for c in split_claims(draft)]
    verdicts = OfflineAuditor(embedder).audit(question, claims, sources)
    assert [v.verdict for v in verdicts] == [Verdict.SUPPORTED] * len(claims)


def test_real_similarity_separates_paraphrase_from_unrelated(embedder: Embedder) -> None:
    """Precision first: the passage's own words are supported, a paraphrase only partial."""
    sources = sotu_sources(["1941-Roosevelt-1"], "freedom of speech")
    auditor = OfflineAuditor(embedder)
    claims = [
        ClaimToAudit("The first is freedom of speech and expression [S1].", ("S1",)),
        ClaimToAudit(
            "Roosevelt named freedom of speech and expression as the first freedom [S1].", ("S1",)
        ),
        ClaimToAudit("Roosevelt said freedom of speech is not the first freedom [S1].", ("S1",)),
        ClaimToAudit("The railroads of Kansas were bankrupt because of the drought [S1].", ("S1",)),
    ]
    results = auditor.audit("q", claims, sources)
    assert [r.verdict for r in results] == [
        Verdict.SUPPORTED,
        Verdict.PARTIAL,
        Verdict.CONTRADICTED,
        Verdict.UNSUPPORTED,
    ]
