"""On real web evidence (WiCE test split), quoted and altered claims get the right verdicts."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from agents_helpers import BagOfWordsEmbedder

from evidence_desk.agents.base import ClaimToAudit
from evidence_desk.agents.offline.answerer import claim_text
from evidence_desk.agents.offline.auditor import OfflineAuditor
from evidence_desk.agents.offline.evidence import collapse, quotable
from evidence_desk.types import ScoredPassage, Source, Verdict

DATA = Path(os.environ.get("EVIDENCE_DESK_SHARED_DATA", "/work/shared/data"))
WICE_TEST = DATA / "wice" / "data" / "entailment_retrieval" / "claim" / "test.jsonl"

pytestmark = [
    pytest.mark.shared_data,
    pytest.mark.skipif(not WICE_TEST.exists(), reason=f"WiCE data not found at {WICE_TEST}"),
]


def _cases(limit: int = 60) -> list[tuple[Source, str]]:
    """(source, first supporting sentence) for the first WiCE test records that have one."""
    out: list[tuple[Source, str]] = []
    with open(WICE_TEST, encoding="utf-8") as f:
        records: list[dict[str, Any]] = [json.loads(line) for line in f]
    for i, rec in enumerate(records):
        groups = [g for g in rec["supporting_sentences"] if g]
        if not groups or rec["evidence"][groups[0][0]].startswith("(meta data)"):
            continue
        passages = tuple(
            ScoredPassage(id=f"w{i}#{j}", text=s, start=0, end=len(s), score=1.0)
            for j, s in enumerate(rec["evidence"])
        )
        digest = hashlib.sha256(rec["claim"].encode()).hexdigest()
        source = Source(
            id="S1", doc_id=f"wice-{i}", title="", retrieved_at="2023-01-01T00:00:00Z",
            content_sha256=digest, passages=passages,
        )  # fmt: skip
        out.append((source, rec["evidence"][groups[0][0]]))
        if len(out) == limit:
            break
    return out


def test_quoted_supporting_sentences_are_supported() -> None:
    auditor = OfflineAuditor(BagOfWordsEmbedder())
    checked = 0
    for source, sentence in _cases():
        quote = quotable(sentence)
        if quote is None or len(quote.split()) < 4:
            continue
        claim = claim_text(source, collapse(quote).rstrip(".,;:"))
        result = auditor.audit("q", [ClaimToAudit(claim, ("S1",))], [source])[0]
        assert result.verdict == Verdict.SUPPORTED, claim
        checked += 1
    assert checked >= 40


def test_negated_supporting_sentences_are_mostly_contradicted() -> None:
    auditor = OfflineAuditor(BagOfWordsEmbedder())
    verdicts = []
    for source, sentence in _cases():
        m = re.search(r"\b(is|was|are|were|has|have|had|will)\b", sentence)
        if m is None or '"' in sentence:
            continue
        claim = f"{collapse(sentence[: m.end()] + ' not' + sentence[m.end() :]).rstrip('.')} [S1]."
        verdicts.append(auditor.audit("q", [ClaimToAudit(claim, ("S1",))], [source])[0].verdict)
    assert len(verdicts) >= 20
    assert sum(v == Verdict.CONTRADICTED for v in verdicts) / len(verdicts) >= 0.8
