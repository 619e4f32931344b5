"""From ingest to a signed receipt, offline, on a small real archive."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SMALL_ARCHIVE, settings_for, sotu_records, write_jsonl
from evidence_desk.desk import Desk
from evidence_desk.trust.receipts import chain_problems
from evidence_desk.trust.text import find_verbatim
from evidence_desk.types import Decision, Receipt

PUBLISHED = {Decision.AUTO_CLEARED, Decision.PUBLISHED_AFTER_PRUNING}


def test_answer_is_published_with_verbatim_quotes_and_a_valid_receipt(desk: Desk) -> None:
    result = desk.ask("What did Franklin D. Roosevelt say about freedom of speech in 1941?")
    r = Receipt.model_validate(result.receipt)
    assert r.decision in PUBLISHED, r.reason
    assert "freedom of speech" in r.published_answer.lower()
    assert r.published_answer.count("[S") >= 1
    cited = {s.id: s for s in r.sources}
    for claim in (c for c in r.claims if c.kept):
        assert claim.checks.passed and claim.verdict == "supported"
        for quote in claim.quotes:
            doc = desk.store.get_document(cited[quote.source_id or ""].doc_id)
            assert doc is not None and quote.verbatim
            assert find_verbatim(quote.text, doc.text[quote.start : quote.end]) is not None
    assert "1941-Roosevelt-1" in {s.doc_id for s in r.sources}
    assert result.path is not None and result.path.exists()
    on_disk = json.loads(result.path.read_text("utf-8"))
    assert on_disk == result.receipt
    assert desk.verify_receipt(on_disk).ok


def test_plan_windows_restrict_sources_to_the_period_asked(desk: Desk) -> None:
    r = Receipt.model_validate(
        desk.ask("What did the president say about slavery in 1862?").receipt
    )
    assert r.plan.time_windows
    assert r.sources and all((s.date or "").startswith("1862") for s in r.sources)


def test_comparison_answers_each_side(desk: Desk) -> None:
    r = desk.run("How did Lincoln in 1862 and Kennedy in 1961 talk about freedom?")
    assert r.plan.kind == "comparison"
    docs = {s.doc_id for s in r.sources}
    assert {"1862-Lincoln-1", "1961-Kennedy-1"} <= docs
    if r.decision in PUBLISHED:
        cited_docs = {s.doc_id for s in r.sources if f"[{s.id}]" in r.published_answer}
        assert {"1862-Lincoln-1", "1961-Kennedy-1"} <= cited_docs


def test_questions_the_archive_cannot_answer_are_outside_coverage(desk: Desk) -> None:
    for question in (
        "What did the president say about Mars colonies in the 2031 State of the Union?",
        "What is the atomic number of carbon?",
        "What did George Washington say about the internet?",
    ):
        r = desk.run(question)
        assert r.decision == Decision.OUTSIDE_COVERAGE, (question, r.reason)
        assert r.published_answer == ""
        assert r.coverage is not None and not r.coverage.covered


def test_receipts_form_a_chain(desk: Desk) -> None:
    first = desk.ask("What did Kennedy propose about the Peace Corps?").receipt
    second = desk.ask("What did Obama say about Usama bin Laden?").receipt
    assert second["integrity"]["previous_receipt_sha256"] == first["integrity"]["canonical_sha256"]
    stored = [json.loads(s.json) for s in desk.store.iter_receipts()]
    assert chain_problems(stored) == []


def test_tampered_receipt_fails_verification(desk: Desk) -> None:
    receipt = desk.ask("What did Washington recommend about a national university?").receipt
    forged = json.loads(json.dumps(receipt))
    forged["decision"] = (
        "AUTO_CLEARED" if receipt["decision"] != "AUTO_CLEARED" else "HELD_FOR_REVIEW"
    )
    report = desk.verify_receipt(forged)
    assert not report.ok
    assert any("hash" in p for p in report.problems)


def test_reingest_is_idempotent_and_changes_replace_atomically(
    fresh_home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    desk = Desk(settings_for(fresh_home, embedding_cache))
    records = sotu_records(SMALL_ARCHIVE)
    same = desk.ingest([write_jsonl(tmp_path / "same.jsonl", records)])
    assert (same.added, same.replaced, same.unchanged) == (0, 0, len(SMALL_ARCHIVE))
    assert same.passages_embedded == 0
    generation = desk.store.generation()

    records[0] = {**records[0], "text": records[0]["text"] + "\n\nA closing line added later."}
    changed = desk.ingest([write_jsonl(tmp_path / "changed.jsonl", records)])
    assert (changed.added, changed.replaced) == (0, 1)
    assert desk.store.generation() > generation
    doc = desk.store.get_document(SMALL_ARCHIVE[0])
    assert doc is not None and doc.text.endswith("A closing line added later.")
    # The index follows the store: the new text is searchable at once.
    hits = desk.archive.search("closing line added later", [], 5)
    assert hits and hits[0].passage.doc_id == SMALL_ARCHIVE[0]
