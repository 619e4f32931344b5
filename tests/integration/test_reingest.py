"""Receipts survive a re-ingest: old quotes re-checked against the text they were made from.

A receipt is written offline; then a new loader version reads one address differently (a
note in front of it shifts every offset) and the archive is re-ingested. The old receipt
still verifies, its quotes re-checked against the kept earlier text; new runs use the new
text, and their receipts verify against it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SMALL_ARCHIVE, settings_for, sotu_records, write_jsonl
from evidence_desk.archive.loaders import versions as loader_versions
from evidence_desk.desk import Desk
from evidence_desk.trust.receipts import verify_receipt
from evidence_desk.types import Decision, Receipt

QUESTION = "What did Franklin D. Roosevelt say about freedom of speech in 1941?"
CHANGED = "1941-Roosevelt-1"
NOTE = "A note that a newer loader puts in front of the address.\n\n"
PUBLISHED = {Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING}


def _quotes_from(receipt: Receipt, doc_id: str) -> int:
    ids = {s.id for s in receipt.sources if s.doc_id == doc_id}
    return sum(1 for c in receipt.claims for q in c.quotes if q.verbatim and q.source_id in ids)


def test_an_old_receipt_verifies_after_its_document_was_re_extracted(
    fresh_home: Path, embedding_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = Desk(settings_for(fresh_home, embedding_cache))
    old = desk.ask(QUESTION).receipt
    old_model = Receipt.model_validate(old)
    assert old_model.decision in PUBLISHED and _quotes_from(old_model, CHANGED) >= 1
    old_sha = next(s.content_sha256 for s in old_model.sources if s.doc_id == CHANGED)

    monkeypatch.setitem(loader_versions.LOADER_VERSIONS, "jsonl", "jsonl-test")
    records = sotu_records(SMALL_ARCHIVE)
    records = [{**r, "text": NOTE + r["text"]} if r["id"] == CHANGED else r for r in records]
    summary = desk.ingest([write_jsonl(tmp_path / "newer.jsonl", records)])
    assert (summary.reextracted, summary.documents) == (len(SMALL_ARCHIVE), len(SMALL_ARCHIVE))
    assert summary.passages_embedded > 0  # the changed address was re-chunked and re-embedded
    current = desk.store.get_document(CHANGED)
    assert (
        current is not None and current.text.startswith(NOTE) and current.content_sha256 != old_sha
    )

    outcome = desk.verify_receipt(old)
    assert outcome.ok, outcome.problems
    assert "quotes at their offsets in the stored text" in outcome.passed
    assert any(CHANGED in note and "earlier text" in note for note in outcome.notes)
    # Against the current text alone the old receipt's source reads as changed: the kept
    # text is what the quotes were re-checked against.
    texts = {
        s.doc_id: desk.store.get_documents([s.doc_id])[s.doc_id].text for s in old_model.sources
    }
    against_current = verify_receipt(old, documents=texts)
    assert any(f"Document {CHANGED}" in p and "changed" in p for p in against_current.problems)
    assert any("not at its recorded place" in p for p in against_current.problems)

    new = desk.ask(QUESTION).receipt
    new_model = Receipt.model_validate(new)
    assert new_model.decision in PUBLISHED
    new_source = next(s for s in new_model.sources if s.doc_id == CHANGED)
    assert new_source.content_sha256 == current.content_sha256
    fresh = desk.verify_receipt(new)
    assert fresh.ok, fresh.problems
    assert not any("earlier text" in note for note in fresh.notes)
